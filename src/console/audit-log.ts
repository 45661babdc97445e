// The audit and consultation log (GET /auditoria, D25, D29, D34) for roles holding
// `auditoria.ver`: its filters as the API names them, 50 entries a page. "Who consulted a
// person between two dates" is `dni` with `desde` and `hasta`. The API checks every filter.
import { useState } from 'preact/hooks'
import { call } from './api.js'
import { ErrorBox } from './error-box.js'
import { html } from './html.js'
import { Pager, usePaged } from './pager.js'
import { shown } from './module-view.js'

const PAGE = 50
const FILTERS = [
  ['dni', 'DNI o NIF de la persona'],
  ['usuario', 'Usuario (id o nombre de usuario)'],
  ['accion', 'Acción'],
  ['modulo', 'Módulo'],
  ['registro', 'Registro (id)'],
  ['desde', 'Desde (AAAA-MM-DD)'],
  ['hasta', 'Hasta (AAAA-MM-DD)'],
] as const

interface Entry {
  readonly seq: number
  readonly at: string
  readonly user_id: string | null
  readonly action: string
  readonly module: string | null
  readonly record_id: string | null
  readonly record_ids?: readonly string[] | null
  readonly motivo?: string | null
  readonly address?: string | null
}

interface Page {
  readonly entries: readonly Entry[]
  readonly total: number
}

export function AuditLog() {
  const [values, setValues] = useState<Readonly<Record<string, string>>>({})
  const [applied, setApplied] = useState<Readonly<Record<string, string>>>({})
  const { offset, setOffset, page, error } = usePaged(
    (from) => {
      const params = new URLSearchParams({ limit: String(PAGE), offset: String(from) })
      for (const [name, value] of Object.entries(applied)) if (value.trim() !== '') params.set(name, value.trim())
      return call<Page>('GET', `/auditoria?${params.toString()}`)
    },
    [applied],
  )

  const apply = (event: Event) => {
    event.preventDefault()
    setOffset(0)
    setApplied(values)
  }
  const pages = page === null ? 0 : Math.max(1, Math.ceil(page.total / PAGE))

  return html`<section aria-labelledby="audit-title">
    <h1 id="audit-title" tabindex="-1">Auditoría y consultas</h1>
    <p class="actions"><a href="#/">Inicio</a></p>
    <form class="filters" onSubmit=${apply} role="search" aria-label="Filtros de la auditoría">
      ${FILTERS.map(
        ([name, label]) =>
          html`<span class="group">
            <label for=${`a-${name}`}>${label}</label>
            <input
              id=${`a-${name}`}
              value=${values[name] ?? ''}
              onInput=${(e: Event) => setValues({ ...values, [name]: (e.currentTarget as HTMLInputElement).value })}
            />
          </span>`,
      )}
      <button type="submit">Buscar</button>
    </form>
    <${ErrorBox} error=${error} />
    ${
      page !== null &&
      html`<p role="status">${page.total} entradas · página ${Math.floor(offset / PAGE) + 1} de ${pages}</p>
        <div class="table-wrap" tabindex="0" role="region" aria-label="Entradas de la auditoría">
          <table>
            <caption class="visually-hidden">
              Entradas de la auditoría
            </caption>
            <thead>
              <tr>
                <th scope="col">N.º</th>
                <th scope="col">Fecha</th>
                <th scope="col">Usuario</th>
                <th scope="col">Acción</th>
                <th scope="col">Módulo</th>
                <th scope="col">Registros</th>
                <th scope="col">Motivo</th>
                <th scope="col">Dirección</th>
              </tr>
            </thead>
            <tbody>
              ${page.entries.map(
                (e) =>
                  html`<tr>
                    <th scope="row">${e.seq}</th>
                    <td>${e.at}</td>
                    <td>${shown(e.user_id)}</td>
                    <td>${e.action}</td>
                    <td>${shown(e.module)}</td>
                    <td>${e.record_id ?? (e.record_ids ?? []).join(', ')}</td>
                    <td>${shown(e.motivo)}</td>
                    <td>${shown(e.address)}</td>
                  </tr>`,
              )}
            </tbody>
          </table>
        </div>
        <${Pager} offset=${offset} size=${PAGE} total=${page.total} onOffset=${setOffset} />`
    }
  </section>`
}
