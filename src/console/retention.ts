// The retention queue and legal holds (D41) for roles holding `retencion.ver` and
// `retencion.decidir`: GET /retencion (with `module`), a record's state or tombstone
// (GET /retencion/{m}/{id}), the decisions with their required motivo (POST, suprimir only after
// a confirmation) and holds (POST and DELETE .../retener). The API decides who may do what:
// a role without `retencion.decidir` sees the forms and gets the API's 403.
import { useEffect, useState } from 'preact/hooks'
import { call } from './api.js'
import { ErrorBox } from './error-box.js'
import { html } from './html.js'
import { Pager, usePaged } from './pager.js'
import { shown, type RecordData } from './module-view.js'
import { Fields } from './record-page.js'

const PAGE = 50

interface Due {
  readonly module: string
  readonly id: string
  readonly due_since: string
  readonly reason: string
  readonly hold: string | null
}

const REASONS: Readonly<Record<string, string>> = { revision: 'revisión', plazo_maximo: 'plazo máximo cumplido' }
const STATE_LABELS: Readonly<Record<string, string>> = {
  module: 'Módulo',
  id: 'Registro',
  from: 'Inicio del plazo',
  reviewed_at: 'Revisado el',
  reviewed_by: 'Revisado por',
  next_due: 'Próxima revisión',
  keep_until: 'Conservar hasta',
  blocked_at: 'Bloqueado el',
  blocked_by: 'Bloqueado por',
  due_since: 'Pendiente desde',
  reason: 'Motivo de revisión',
  hold: 'Retención legal',
  erased_at: 'Suprimido el',
  erased_by: 'Suprimido por',
  motivo: 'Motivo',
  basis: 'Base jurídica',
}
const value = (e: Event) => (e.currentTarget as HTMLInputElement).value

export function RetentionQueue() {
  const [module, setModule] = useState('')
  const [applied, setApplied] = useState('')
  const { offset, setOffset, page, error } = usePaged(
    (from) => {
      const params = new URLSearchParams({ limit: String(PAGE), offset: String(from) })
      if (applied !== '') params.set('module', applied)
      return call<{ entries: Due[]; total: number }>('GET', `/retencion?${params.toString()}`)
    },
    [applied],
  )

  const apply = (event: Event) => {
    event.preventDefault()
    setOffset(0)
    setApplied(module.trim())
  }

  return html`<section aria-labelledby="retention-title">
    <h1 id="retention-title" tabindex="-1">Conservación y retenciones</h1>
    <p class="actions"><a href="#/">Inicio</a></p>
    <form class="filters" onSubmit=${apply} role="search" aria-label="Filtro de la cola">
      <span class="group">
        <label for="r-module">Módulo</label>
        <input id="r-module" value=${module} onInput=${(e: Event) => setModule(value(e))} />
      </span>
      <button type="submit">Filtrar</button>
    </form>
    <${ErrorBox} error=${error} />
    ${
      page !== null &&
      html`<p role="status">${page.total} registros pendientes de decisión</p>
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">
              Registros pendientes de decisión
            </caption>
            <thead>
              <tr>
                <th scope="col">Registro</th>
                <th scope="col">Módulo</th>
                <th scope="col">Motivo</th>
                <th scope="col">Pendiente desde</th>
                <th scope="col">Retención legal</th>
              </tr>
            </thead>
            <tbody>
              ${page.entries.map(
                (e) =>
                  html`<tr>
                    <th scope="row"><a href=${`#/retencion/${e.module}/${e.id}`}>${e.id}</a></th>
                    <td>${e.module}</td>
                    <td>${REASONS[e.reason] ?? e.reason}</td>
                    <td>${e.due_since}</td>
                    <td>${shown(e.hold)}</td>
                  </tr>`,
              )}
            </tbody>
          </table>
        </div>
        <${Pager} offset=${offset} size=${PAGE} total=${page.total} onOffset=${setOffset} />`
    }
  </section>`
}

export function RetentionRecord({ module, id }: { module: string; id: string }) {
  const path = `/retencion/${encodeURIComponent(module)}/${encodeURIComponent(id)}`
  const [state, setState] = useState<RecordData | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [notice, setNotice] = useState<string | null>(null)
  const [decision, setDecision] = useState('conservar')
  const [motivo, setMotivo] = useState('')
  const [confirming, setConfirming] = useState(false)
  const [referencia, setReferencia] = useState('')
  const [holdMotivo, setHoldMotivo] = useState('')

  useEffect(() => {
    call<RecordData>('GET', path)
      .then(({ data }) => setState(data))
      .catch(setError)
  }, [path])

  const send = (method: string, suffix: string, body: unknown, done: string) => {
    setError(null)
    setNotice(null)
    call<RecordData>(method, `${path}${suffix}`, { body })
      .then(({ data }) => {
        setState(data)
        setNotice(done)
        setMotivo('')
        setReferencia('')
        setHoldMotivo('')
      })
      .catch(setError)
      .finally(() => setConfirming(false))
  }
  const decide = (event: Event) => {
    event.preventDefault()
    if (decision === 'suprimir' && !confirming) return setConfirming(true)
    send('POST', '', { decision, motivo }, `Decisión aplicada: ${decision}`)
  }
  const hold = (event: Event) => {
    event.preventDefault()
    send('POST', '/retener', { referencia, motivo: holdMotivo }, 'Retención legal puesta')
  }
  const release = () => send('DELETE', '/retener', { motivo: holdMotivo }, 'Retención legal levantada')
  const erased = state !== null && state['erased_at'] !== undefined

  return html`<section aria-labelledby="retention-record-title">
    <h1 id="retention-record-title" tabindex="-1">Conservación de ${module} ${id}</h1>
    <p class="actions"><a href="#/retencion">Volver a la cola</a></p>
    <${ErrorBox} error=${error} />
    ${notice !== null && html`<p role="status" class="notice">${notice}</p>`}
    ${erased && html`<p><strong>Registro suprimido.</strong> Queda esta constancia, sin sus datos.</p>`}
    ${state !== null && html`<${Fields} record=${state} title="Estado de conservación" labels=${STATE_LABELS} />`}
    ${
      state !== null &&
      !erased &&
      html`<h2>Decisión</h2>
        <form class="panel" onSubmit=${decide}>
          <p>
            <label for="r-decision">Decisión</label>
            <select
              id="r-decision"
              value=${decision}
              onChange=${(e: Event) => {
                setDecision(value(e))
                setConfirming(false)
              }}
            >
              <option value="conservar">Conservar (próxima revisión desde hoy)</option>
              <option value="bloquear">Bloquear</option>
              <option value="desbloquear">Desbloquear</option>
              <option value="suprimir">Suprimir definitivamente</option>
            </select>
          </p>
          <p>
            <label for="r-motivo">Motivo de la decisión</label>
            <textarea
              id="r-motivo"
              required
              maxlength="500"
              value=${motivo}
              onInput=${(e: Event) => setMotivo(value(e))}
            ></textarea>
          </p>
          ${
            confirming
              ? html`<div class="error" role="alert">
                  <p>La supresión borra el registro y todas sus versiones; no se puede deshacer.</p>
                  <p class="actions">
                    <button type="submit">Confirmar la supresión</button>
                    <button type="button" onClick=${() => setConfirming(false)}>Cancelar</button>
                  </p>
                </div>`
              : html`<button type="submit">Aplicar decisión</button>`
          }
        </form>
        <h2>Retención legal</h2>
        <form class="panel" onSubmit=${hold}>
          <p>
            <label for="r-referencia">Referencia (p. ej. número de diligencias)</label>
            <input
              id="r-referencia"
              maxlength="200"
              value=${referencia}
              onInput=${(e: Event) => setReferencia(value(e))}
            />
          </p>
          <p>
            <label for="r-hold-motivo">Motivo de la retención o de su levantamiento</label>
            <input
              id="r-hold-motivo"
              maxlength="500"
              value=${holdMotivo}
              onInput=${(e: Event) => setHoldMotivo(value(e))}
            />
          </p>
          <p class="actions">
            <button type="submit">Retener</button>
            <button type="button" onClick=${release}>Levantar la retención</button>
          </p>
        </form>`
    }
  </section>`
}
