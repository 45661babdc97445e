// A module's records: GET /{module} with limit/offset paging, `sort` by a column, `q` when the
// module has text search, and one `campo=valor` filter. The API decides what the role sees.
// Live (live.ts): a record on the page edited elsewhere is replaced by the event's `registro`,
// one deleted or gone out of view (`eliminar`, `fuera`) is removed, and any other write (a new
// record, an edit that may bring one into the page) reloads the page as the API sorts it.
import { useEffect, useState } from 'preact/hooks'
import { ErrorBox } from './error-box.js'
import { html } from './html.js'
import { Pager } from './pager.js'
import { callFor } from './motivo.js'
import { follow, liveText, type LiveEvent, type LiveState } from './live.js'
import { labelOf, shown, type FieldView, type ModuleView, type RecordData } from './module-view.js'

export const PAGE_SIZE = 20
const MAX_COLUMNS = 6

interface Page {
  readonly records: readonly RecordData[]
  readonly total: number
}

/** The columns: fields the role reads with short plain values, required ones and the state first, at most six. */
function columnsOf(module: ModuleView) {
  const plain = module.campos.filter(
    (c) => c.lee && !c.cifrado && !['array', 'mixed', 'file', 'text', 'password'].includes(c.tipo),
  )
  const first = (c: FieldView) => c.requerido || c.nombre === module.workflow?.campo
  return [...plain.filter(first), ...plain.filter((c) => !first(c))].slice(0, MAX_COLUMNS)
}

export function RecordList({ module }: { module: ModuleView }) {
  const [offset, setOffset] = useState(0)
  const [sort, setSort] = useState('')
  const [q, setQ] = useState('')
  const [filterField, setFilterField] = useState('')
  const [filterValue, setFilterValue] = useState('')
  const [applied, setApplied] = useState({ q: '', field: '', value: '' })
  const [page, setPage] = useState<Page | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [reloads, setReloads] = useState(0)
  const [live, setLive] = useState<LiveState | null>(null)
  const [touched, setTouched] = useState<ReadonlySet<string>>(new Set())
  const loaded = page !== null
  const columns = columnsOf(module)
  const filterable = module.campos.filter((c) => c.lee && c.operadores.includes('eq'))

  useEffect(() => {
    const params = new URLSearchParams({ limit: String(PAGE_SIZE), offset: String(offset) })
    if (sort !== '') params.set('sort', sort)
    if (applied.q !== '') params.set('q', applied.q)
    if (applied.field !== '' && applied.value !== '') params.set(applied.field, applied.value)
    setError(null)
    callFor<Page>(module.nombre, 'GET', `/${module.nombre}?${params.toString()}`)
      .then(({ data }) => setPage(data))
      .catch((caught: unknown) => {
        setPage(null)
        setError(caught)
      })
  }, [module.nombre, offset, sort, applied, reloads])

  // Follow the module once the list answered (so a motivo it asked for is there for the ticket).
  useEffect(() => {
    if (!loaded) return
    const onEvent = (e: LiveEvent) => {
      if (e.id !== undefined && e.evento !== 'eliminar' && e.evento !== 'fuera')
        setTouched((s) => new Set(s).add(e.id!))
      if (e.evento === 'recargar' || e.evento === 'crear') return setReloads((n) => n + 1)
      setPage((current) => {
        if (current === null) return current
        const at = current.records.findIndex((r) => String(r['_id']) === e.id)
        if (at < 0) {
          if (e.evento !== 'eliminar' && e.evento !== 'fuera') setReloads((n) => n + 1)
          return current
        }
        if (e.evento === 'eliminar' || e.evento === 'fuera')
          return { records: current.records.filter((_, i) => i !== at), total: current.total - 1 }
        if (e.registro === undefined) return current
        return { ...current, records: current.records.map((r, i) => (i === at ? e.registro! : r)) }
      })
    }
    return follow(module.nombre, onEvent, setLive)
  }, [module.nombre, loaded])

  const search = (event: Event) => {
    event.preventDefault()
    setOffset(0)
    setApplied({ q, field: filterField, value: filterValue })
  }
  const sortBy = (name: string) => {
    setOffset(0)
    setSort(sort === name ? `-${name}` : name)
  }
  const ariaSort = (name: string) => (sort === name ? 'ascending' : sort === `-${name}` ? 'descending' : 'none')
  const pages = page === null ? 0 : Math.max(1, Math.ceil(page.total / PAGE_SIZE))
  const value = (e: Event) => (e.currentTarget as HTMLInputElement).value

  return html`<section aria-labelledby="list-title">
    <h1 id="list-title" tabindex="-1">${module.descripcion}</h1>
    <p class="actions">
      <a href="#/">Módulos</a>
      ${module.acciones.includes('crear') && html`<a class="button" href=${`#/m/${module.nombre}/nuevo`}>Nuevo registro</a>`}
    </p>
    <form class="filters" onSubmit=${search} role="search">
      ${
        module.busqueda &&
        html`<span class="group">
          <label for="q">Buscar texto</label>
          <input id="q" type="search" value=${q} onInput=${(e: Event) => setQ(value(e))} />
        </span>`
      }
      <span class="group">
        <label for="filter-field">Filtrar por campo</label>
        <select id="filter-field" value=${filterField} onChange=${(e: Event) => setFilterField(value(e))}>
          <option value="">(ninguno)</option>
          ${filterable.map((c) => html`<option value=${c.nombre}>${labelOf(c.nombre)}</option>`)}
        </select>
      </span>
      <span class="group">
        <label for="filter-value">Valor</label>
        <input id="filter-value" value=${filterValue} onInput=${(e: Event) => setFilterValue(value(e))} />
      </span>
      <button type="submit">Aplicar</button>
    </form>
    <${ErrorBox} error=${error} />
    ${live !== null && html`<p class=${`live live-${live.estado}`} aria-live="polite">${liveText(live)}</p>`}
    ${
      page !== null &&
      html`<p role="status">${page.total} registros · página ${Math.floor(offset / PAGE_SIZE) + 1} de ${pages}</p>
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">
              Registros de ${module.descripcion}
            </caption>
            <thead>
              <tr>
                <th scope="col">Id</th>
                ${columns.map(
                  (c) =>
                    html`<th scope="col" aria-sort=${ariaSort(c.nombre)}>
                      ${
                        c.ordenable
                          ? html`<button type="button" class="link" onClick=${() => sortBy(c.nombre)}>
                              ${labelOf(c.nombre)}<span class="visually-hidden"> (ordenar)</span>
                            </button>`
                          : labelOf(c.nombre)
                      }
                    </th>`,
                )}
              </tr>
            </thead>
            <tbody>
              ${page.records.map(
                (r) =>
                  html`<tr class=${touched.has(String(r['_id'])) ? 'changed' : undefined}>
                    <th scope="row"><a href=${`#/m/${module.nombre}/${String(r['_id'])}`}>${String(r['_id'])}</a></th>
                    ${columns.map((c) => html`<td>${shown(r[c.nombre])}</td>`)}
                  </tr>`,
              )}
            </tbody>
          </table>
        </div>
        <${Pager} offset=${offset} size=${PAGE_SIZE} total=${page.total} onOffset=${setOffset} />`
    }
  </section>`
}
