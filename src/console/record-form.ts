// Create (POST /{module}) and edit (PUT /{module}/{id} with If-Match from the ETag) forms, built
// from the role's view of the module: fields it writes as inputs, fields it only reads disabled.
// The workflow's moves from the record's state are buttons. Every refusal is the API's.
import { useEffect, useState } from 'preact/hooks'
import { ApiError, MESSAGES } from './api.js'
import { ErrorBox } from './error-box.js'
import { html } from './html.js'
import { callFor } from './motivo.js'
import { labelOf, type FieldView, type ModuleView, type RecordData } from './module-view.js'

type Values = Record<string, string | boolean>

const NUMBER = new Set(['integer', 'decimal'])
const JSON_TYPES = new Set(['array', 'mixed'])

/** A record value as the form holds it. */
function formValue(field: FieldView, value: unknown): string | boolean {
  if (field.tipo === 'boolean') return value === true
  if (value === null || value === undefined) return ''
  if (JSON_TYPES.has(field.tipo)) return JSON.stringify(value)
  return String(value)
}

/** The form's text as the API's JSON value; a malformed list is reported on its field. */
function apiValue(field: FieldView, raw: string | boolean): unknown {
  if (typeof raw === 'boolean') return raw
  if (raw.trim() === '') return null
  if (NUMBER.has(field.tipo)) return Number(raw)
  if (JSON_TYPES.has(field.tipo)) {
    try {
      return JSON.parse(raw) as unknown
    } catch {
      throw new Error(`${labelOf(field.nombre)}: escriba un valor JSON (por ejemplo ["a", "b"])`)
    }
  }
  return raw
}

function Input({
  field,
  value,
  disabled,
  onChange,
}: {
  field: FieldView
  value: string | boolean
  disabled: boolean
  onChange: (value: string | boolean) => void
}) {
  const id = `f-${field.nombre}`
  const hint = `${field.ayuda}${field.descripcion === undefined ? '' : `. ${field.descripcion}`}`
  const text = (e: Event) => onChange((e.currentTarget as HTMLInputElement).value)
  const common = { id, name: field.nombre, disabled, 'aria-describedby': `${id}-hint` }
  let control
  if (field.tipo === 'boolean')
    control = html`<input
      ...${common}
      type="checkbox"
      checked=${value === true}
      onChange=${(e: Event) => onChange((e.currentTarget as HTMLInputElement).checked)}
    />`
  else if (field.valores !== undefined)
    control = html`<select ...${common} value=${value} onChange=${text}>
      <option value="">(sin valor)</option>
      ${field.valores.map((v) => html`<option value=${v}>${v}</option>`)}
    </select>`
  else if (field.tipo === 'text' || JSON_TYPES.has(field.tipo))
    control = html`<textarea ...${common} rows="3" value=${value} onInput=${text}></textarea>`
  else {
    const type = NUMBER.has(field.tipo)
      ? 'number'
      : field.tipo === 'password'
        ? 'password'
        : field.tipo === 'date'
          ? 'date'
          : field.formato === 'email'
            ? 'email'
            : 'text'
    control = html`<input
      ...${common}
      type=${type}
      step=${type === 'number' ? 'any' : undefined}
      value=${value}
      onInput=${text}
    />`
  }
  return html`<div class="field">
    <label for=${id}>${labelOf(field.nombre)}${field.requerido ? ' (obligatorio)' : ''}</label>
    ${control}
    <small id=${`${id}-hint`}>${hint}${disabled ? ' · solo lectura' : ''}</small>
  </div>`
}

export function RecordForm({ module, id }: { module: ModuleView; id: string | null }) {
  const editing = id !== null
  const path = editing ? `/${module.nombre}/${encodeURIComponent(id)}` : `/${module.nombre}`
  const [record, setRecord] = useState<RecordData | null>(null)
  const [etag, setEtag] = useState<string | null>(null)
  const [values, setValues] = useState<Values>({})
  const [error, setError] = useState<unknown>(null)
  const [conflict, setConflict] = useState(false)
  const [busy, setBusy] = useState(false)
  const stateField = module.workflow?.campo
  const shownFields = module.campos.filter(
    (c) => (c.escribe || c.lee) && c.tipo !== 'file' && !(editing && c.tipo === 'password'),
  )

  const load = async () => {
    setConflict(false)
    setError(null)
    if (!editing) {
      setValues({})
      return
    }
    const answer = await callFor<RecordData>(module.nombre, 'GET', path)
    setRecord(answer.data)
    setEtag(answer.etag)
    setValues(Object.fromEntries(shownFields.map((f) => [f.nombre, formValue(f, answer.data[f.nombre])])))
  }
  useEffect(() => void load().catch(setError), [path])

  /** The body: on create every value given, on edit only what changed (the state as a move sets it). */
  const bodyOf = (move?: string): Record<string, unknown> => {
    const body: Record<string, unknown> = {}
    for (const field of shownFields) {
      if (!field.escribe || field.nombre === stateField) continue
      const raw = values[field.nombre]
      if (raw === undefined) continue
      const before = editing ? formValue(field, record?.[field.nombre]) : field.tipo === 'boolean' ? false : ''
      if (raw === before) continue
      const value = apiValue(field, raw)
      if (!editing && value === null) continue
      body[field.nombre] = value
    }
    if (stateField !== undefined && move !== undefined) body[stateField] = move
    if (!editing && stateField !== undefined && typeof values[stateField] === 'string' && values[stateField] !== '')
      body[stateField] = values[stateField]
    return body
  }

  const save = async (move?: string) => {
    setBusy(true)
    setError(null)
    try {
      const body = bodyOf(move)
      const answer = await callFor<RecordData>(module.nombre, editing ? 'PUT' : 'POST', path, {
        body,
        ...(editing ? { ifMatch: etag } : {}),
      })
      location.hash = `#/m/${module.nombre}/${String(answer.data['_id'])}`
    } catch (caught) {
      const isConflict = caught instanceof ApiError && (caught.status === 412 || caught.message === MESSAGES.conflict)
      setConflict(isConflict)
      setError(caught)
    } finally {
      setBusy(false)
    }
  }
  const submit = (event: Event) => {
    event.preventDefault()
    void save()
  }
  const state = stateField === undefined ? undefined : record?.[stateField]
  const moves = typeof state === 'string' ? (module.workflow?.movimientos[state] ?? []) : []
  const initial = module.workflow?.inicial ?? []
  // An edit form appears once the record is in hand, so nothing typed is overwritten by its arrival.
  if (editing && record === null)
    return html`<section aria-labelledby="form-title">
      <h1 id="form-title" tabindex="-1">Editar ${id}</h1>
      <p role="status">Cargando…</p>
      <${ErrorBox} error=${error} />
    </section>`

  return html`<section aria-labelledby="form-title">
    <h1 id="form-title" tabindex="-1">${editing ? `Editar ${id}` : `Nuevo registro · ${module.descripcion}`}</h1>
    <p class="actions"><a href=${editing ? `#/m/${module.nombre}/${id}` : `#/m/${module.nombre}`}>Cancelar</a></p>
    <${ErrorBox} error=${error} />
    ${
      conflict &&
      html`<div class="conflict" role="alert">
        <p>
          Otra persona cambió el registro mientras lo editaba. Recárguelo para ver su versión actual (sus cambios se
          pierden).
        </p>
        <button type="button" onClick=${() => void load().catch(setError)}>Recargar el registro</button>
      </div>`
    }
    <form onSubmit=${submit}>
      ${shownFields.map((field) => {
        const isState = field.nombre === stateField
        const disabled = !field.escribe || (isState && editing)
        const view = isState && !editing && initial.length > 0 ? { ...field, valores: initial } : field
        return html`<${Input}
          key=${field.nombre}
          field=${view}
          value=${values[field.nombre] ?? formValue(field, null)}
          disabled=${disabled}
          onChange=${(v: string | boolean) => setValues({ ...values, [field.nombre]: v })}
        />`
      })}
      <p class="actions">
        <button type="submit" disabled=${busy}>${editing ? 'Guardar cambios' : 'Crear'}</button>
      </p>
      ${
        moves.length > 0 &&
        html`<fieldset class="moves">
          <legend>Cambiar de estado (guarda también los cambios del formulario)</legend>
          ${moves.map(
            (m) =>
              html`<button type="button" disabled=${busy} onClick=${() => void save(m.a)}>
                Pasar a ${m.a}${m.requiere.length > 0 ? ` (requiere ${m.requiere.join(', ')})` : ''}
              </button>`,
          )}
        </fieldset>`
      }
    </form>
  </section>`
}
