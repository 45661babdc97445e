// One record as GET /{module}/{id} returns it (masked values as the API masks them), its
// history (GET .../historial, old and new values) and its earlier versions (?version=N).
import { useEffect, useState } from 'preact/hooks'
import { ErrorBox } from './error-box.js'
import { Evidence } from './evidence.js'
import { html } from './html.js'
import { follow, liveText, type LiveEvent, type LiveState } from './live.js'
import { callFor } from './motivo.js'
import { labelOf, shown, type ModuleView, type RecordData } from './module-view.js'

interface HistoryEntry {
  readonly seq: number
  readonly at: string
  readonly user_id: string | null
  readonly action: string
  readonly version: number | null
  readonly changes?: Readonly<Record<string, { readonly old: unknown; readonly new: unknown }>>
}

export function Fields({
  record,
  title,
  labels = {},
}: {
  record: RecordData
  title: string
  /** Spanish names for keys the API writes in English (a retention state's). */
  labels?: Readonly<Record<string, string>>
}) {
  return html`<dl class="fields" aria-label=${title}>
    ${Object.entries(record).map(
      ([name, value]) =>
        html`<dt>${labels[name] ?? labelOf(name)}</dt>
          <dd>${shown(value)}</dd>`,
    )}
  </dl>`
}

function History({ entries }: { entries: readonly HistoryEntry[] }) {
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="Historial del registro">
    <table>
      <caption>
        Historial
      </caption>
      <thead>
        <tr>
          <th scope="col">Fecha</th>
          <th scope="col">Acción</th>
          <th scope="col">Usuario</th>
          <th scope="col">Versión</th>
          <th scope="col">Cambios</th>
        </tr>
      </thead>
      <tbody>
        ${entries.map(
          (e) =>
            html`<tr>
              <td>${e.at}</td>
              <td>${e.action}</td>
              <td>${shown(e.user_id)}</td>
              <td>${shown(e.version)}</td>
              <td>
                <ul class="changes">
                  ${Object.entries(e.changes ?? {}).map(
                    ([field, change]) =>
                      html`<li><strong>${labelOf(field)}</strong>: ${shown(change.old)} → ${shown(change.new)}</li>`,
                  )}
                </ul>
              </td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`
}

export function RecordPage({ module, id }: { module: ModuleView; id: string }) {
  const [record, setRecord] = useState<RecordData | null>(null)
  const [history, setHistory] = useState<readonly HistoryEntry[] | null>(null)
  const [version, setVersion] = useState<RecordData | null>(null)
  const [error, setError] = useState<unknown>(null)
  const path = `/${module.nombre}/${encodeURIComponent(id)}`

  const [loads, setLoads] = useState(0)
  useEffect(() => {
    setError(null)
    const load = async () => {
      const one = await callFor<RecordData>(module.nombre, 'GET', path)
      setRecord(one.data)
      const entries = await callFor<{ entries: HistoryEntry[] }>(module.nombre, 'GET', `${path}/historial`)
      setHistory(entries.data.entries)
    }
    load().catch(setError)
  }, [path, loads])

  const showVersion = (n: number) => {
    setError(null)
    callFor<RecordData>(module.nombre, 'GET', `${path}?version=${n}`)
      .then(({ data }) => setVersion(data))
      .catch(setError)
  }
  // Live (live.ts): a change made elsewhere reloads the record and says so.
  const [live, setLive] = useState<LiveState | null>(null)
  const [changed, setChanged] = useState<string | null>(null)
  const loaded = record !== null
  useEffect(() => {
    if (!loaded) return
    const onEvent = (e: LiveEvent) => {
      if (e.evento === 'recargar') return setLoads((n) => n + 1)
      if (e.id !== id) return
      if (e.evento === 'eliminar') return setChanged('El registro se ha eliminado en otro lugar.')
      if (e.evento === 'fuera') return setChanged('El registro ha dejado de estar a su alcance.')
      setChanged('El registro ha cambiado en otro lugar: se muestra su versión actual.')
      setLoads((n) => n + 1)
    }
    return follow(module.nombre, onEvent, setLive)
  }, [module.nombre, id, loaded])

  const [deleting, setDeleting] = useState(false)
  // A soft delete (the record is kept for the audit, marked `_deleted`), after a confirmation.
  const remove = () => {
    setError(null)
    callFor<{ message: string }>(module.nombre, 'DELETE', path)
      .then(() => {
        location.hash = `#/m/${encodeURIComponent(module.nombre)}`
      })
      .catch((caught: unknown) => {
        setDeleting(false)
        setError(caught)
      })
  }
  const current = typeof record?.['_version'] === 'number' ? record['_version'] : 0
  const earlier = Array.from({ length: Math.max(0, current - 1) }, (_, i) => i + 1)

  return html`<section aria-labelledby="record-title">
    <h1 id="record-title" tabindex="-1">${module.descripcion} ${id}</h1>
    <p class="actions">
      <a href=${`#/m/${module.nombre}`}>Volver a la lista</a>
      ${
        module.acciones.includes('editar') &&
        record !== null &&
        html`<a class="button" href=${`#/m/${module.nombre}/${id}/editar`}>Editar</a>`
      }
      ${
        module.acciones.includes('eliminar') &&
        record !== null &&
        !deleting &&
        html`<button type="button" onClick=${() => setDeleting(true)}>Eliminar</button>`
      }
    </p>
    ${
      deleting &&
      html`<div class="error" role="alert">
        <p>
          ¿Eliminar ${module.descripcion} ${id}? Deja de aparecer en las listas; se conserva marcado como eliminado para
          la auditoría.
        </p>
        <p class="actions">
          <button type="button" onClick=${remove}>Confirmar la eliminación</button>
          <button type="button" onClick=${() => setDeleting(false)}>Cancelar</button>
        </p>
      </div>`
    }
    ${live !== null && html`<p class=${`live live-${live.estado}`} aria-live="polite">${liveText(live)}</p>`}
    ${changed !== null && html`<p class="notice" role="status">${changed}</p>`}
    <${ErrorBox} error=${error} />
    ${record !== null && html`<${Fields} record=${record} title="Campos del registro" />`}
    ${
      record !== null &&
      html`<${Evidence} module=${module} id=${id} record=${record} onUploaded=${() => setLoads((n) => n + 1)} />`
    }
    ${
      earlier.length > 0 &&
      html`<h2>Versiones anteriores</h2>
        <p class="versions">
          ${earlier.map((n) => html`<button type="button" onClick=${() => showVersion(n)}>Versión ${n}</button>`)}
        </p>`
    }
    ${
      version !== null &&
      html`<h3>Versión ${shown(version['_version'])}</h3>
        <${Fields} record=${version} title=${`Versión ${shown(version['_version'])}`} />`
    }
    ${
      history !== null &&
      html`<h2>Historial</h2>
        <${History} entries=${history} />`
    }
  </section>`
}
