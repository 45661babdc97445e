// A record's evidence files (D43): each `file` field the role reads, its files as the record
// lists them, a download (GET .../ficheros/{field}/{n}, a logged consultation: the motivo typed
// here travels as X-Motivo, and the API's own demand for one is asked as everywhere) and, for
// a field the role may edit, an upload of the file's bytes with its name and SHA-256; each file's
// chain of custody (GET .../custodia): who did what with it, when, and the digest each time.
import { useState } from 'preact/hooks'
import { ApiError, MESSAGES, callFile } from './api.js'
import { ErrorBox } from './error-box.js'
import { html } from './html.js'
import { askMotivo, callFor, motivoAction } from './motivo.js'
import { labelOf, type ModuleView, type RecordData } from './module-view.js'

interface StoredFile {
  readonly n: number
  readonly name: string
  readonly size?: number
  readonly type?: string
  readonly sha256?: string
}

interface CustodyEntry {
  readonly seq: number
  readonly at: string
  readonly action: string
  readonly user_id: string | null
  readonly sha256: string | null
  readonly result?: string
  readonly motivo?: string | null
}

const CUSTODY_LABELS: Readonly<Record<string, string>> = {
  fichero_ingreso: 'ingreso',
  fichero_descarga: 'descarga',
  fichero_verificacion: 'verificación',
  fichero_exportacion: 'exportación',
}

/**
 * A file's custody entries as the API gives them to this role (who downloaded it, and why, only
 * to a role holding the audit permission), each digest compared with the file's own.
 */
function Custody({ path, module, file }: { path: string; module: string; file: StoredFile }) {
  const [entries, setEntries] = useState<readonly CustodyEntry[] | null>(null)
  const [error, setError] = useState<unknown>(null)
  const open = () => {
    setError(null)
    callFor<{ entries: CustodyEntry[] }>(module, 'GET', path)
      .then(({ data }) => setEntries(data.entries))
      .catch(setError)
  }
  if (entries === null)
    return html`<button type="button" onClick=${open}>Cadena de custodia de ${file.name}</button>
      <${ErrorBox} error=${error} />`
  return html`<table class="custody">
    <caption>
      Cadena de custodia de ${file.name}
    </caption>
    <thead>
      <tr>
        <th scope="col">Entrada</th>
        <th scope="col">Cuándo</th>
        <th scope="col">Qué</th>
        <th scope="col">Quién</th>
        <th scope="col">SHA-256</th>
      </tr>
    </thead>
    <tbody>
      ${entries.map(
        (e) =>
          html`<tr>
            <th scope="row">${e.seq}</th>
            <td>${e.at}</td>
            <td>${CUSTODY_LABELS[e.action] ?? e.action}${e.result === undefined ? '' : ` (${e.result})`}</td>
            <td>${e.user_id ?? '—'}${e.motivo === undefined || e.motivo === null ? '' : `: ${e.motivo}`}</td>
            <td>
              <code class="secret">${e.sha256 ?? '—'}</code>${
                e.sha256 !== null && file.sha256 !== undefined && e.sha256 !== file.sha256 ? ' (no coincide)' : ''
              }
            </td>
          </tr>`,
      )}
    </tbody>
  </table>`
}

const hex = (bytes: ArrayBuffer) => [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, '0')).join('')

export function Evidence({
  module,
  id,
  record,
  onUploaded,
}: {
  module: ModuleView
  id: string
  record: RecordData
  onUploaded: () => void
}) {
  const fields = module.campos.filter((c) => c.tipo === 'file' && c.lee)
  const [motivo, setMotivo] = useState('')
  const [error, setError] = useState<unknown>(null)
  const [notice, setNotice] = useState<string | null>(null)
  const [chosen, setChosen] = useState<Readonly<Record<string, File | undefined>>>({})
  if (fields.length === 0) return null
  const base = `/${module.nombre}/${encodeURIComponent(id)}/ficheros`

  /** Sends with the motivo typed (if any); when the API asks for one, the prompt asks. */
  const withMotivo = async (
    method: string,
    path: string,
    send: (headers: Record<string, string>) => Promise<Response>,
  ) => {
    const headers: Record<string, string> =
      motivo.trim() === '' ? {} : { 'x-motivo': encodeURIComponent(motivo.trim()) }
    try {
      return await send(headers)
    } catch (caught) {
      if (!(caught instanceof ApiError) || caught.message !== MESSAGES.motivo) throw caught
      const asked = await askMotivo(module.nombre, motivoAction(caught, module.nombre, method, path))
      if (asked === null) throw caught
      return send({ 'x-motivo': encodeURIComponent(asked) })
    }
  }
  const download = (field: string, file: StoredFile) => {
    setError(null)
    setNotice(null)
    withMotivo('GET', base, (headers) => callFile('GET', `${base}/${field}/${file.n}`, headers))
      .then(async (response) => {
        const url = URL.createObjectURL(await response.blob())
        const link = document.createElement('a')
        link.href = url
        link.download = file.name
        link.click()
        setTimeout(() => URL.revokeObjectURL(url), 10_000)
        setNotice(`Descargado: ${file.name}`)
      })
      .catch(setError)
  }
  const upload = (field: string) => async (event: Event) => {
    event.preventDefault()
    const file = chosen[field]
    if (file === undefined) return
    setError(null)
    setNotice(null)
    try {
      const sha = hex(await crypto.subtle.digest('SHA-256', await file.arrayBuffer()))
      await withMotivo('POST', base, (headers) =>
        callFile(
          'POST',
          `${base}/${field}`,
          {
            ...headers,
            'content-type': file.type || 'application/octet-stream',
            'x-nombre': encodeURIComponent(file.name),
            'x-sha256': sha,
          },
          file,
        ),
      )
      setNotice(`Fichero subido: ${file.name}`)
      setChosen({ ...chosen, [field]: undefined })
      onUploaded()
    } catch (caught) {
      setError(caught)
    }
  }

  return html`<section aria-labelledby="evidence-title" class="evidence">
    <h2 id="evidence-title">Ficheros de prueba</h2>
    <p>
      <label for="ev-motivo">Motivo de la descarga o de la subida</label>
      <input
        id="ev-motivo"
        maxlength="500"
        value=${motivo}
        onInput=${(e: Event) => setMotivo((e.currentTarget as HTMLInputElement).value)}
      />
    </p>
    <${ErrorBox} error=${error} />
    ${notice !== null && html`<p role="status" class="notice">${notice}</p>`}
    ${fields.map((field) => {
      const files = Array.isArray(record[field.nombre]) ? (record[field.nombre] as StoredFile[]) : []
      return html`<h3>${labelOf(field.nombre)}</h3>
        ${files.length === 0 && html`<p>Sin ficheros.</p>`}
        <ul class="files">
          ${files.map(
            (f) =>
              html`<li>
                ${f.n}. ${f.name} (${f.type ?? ''}, ${f.size ?? '?'} bytes)
                <button type="button" onClick=${() => download(field.nombre, f)}>Descargar ${f.name}</button>
                <${Custody} path=${`${base}/${field.nombre}/${f.n}/custodia`} module=${module.nombre} file=${f} />
              </li>`,
          )}
        </ul>
        ${
          module.acciones.includes('editar') &&
          html`<form onSubmit=${upload(field.nombre)}>
            <label for=${`ev-file-${field.nombre}`}>Nuevo fichero para ${labelOf(field.nombre)}</label>
            <input
              id=${`ev-file-${field.nombre}`}
              type="file"
              onChange=${(e: Event) => setChosen({ ...chosen, [field.nombre]: (e.currentTarget as HTMLInputElement).files?.[0] })}
            />
            <button type="submit">Subir</button>
          </form>`
        }`
    })}
  </section>`
}
