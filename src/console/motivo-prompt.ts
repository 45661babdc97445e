// The question the API asks through its 400 (motivo_requerido): why is this action done on
// this module's records, worded by the action the API named.
import { useEffect, useRef, useState } from 'preact/hooks'
import { html } from './html.js'
import type { MotivoAction } from './motivo.js'

const WORDING: Record<MotivoAction, readonly [string, string]> = {
  consultar: ['Motivo de la consulta', 'consultar'],
  crear: ['Motivo del alta', 'crear'],
  editar: ['Motivo de la modificación', 'modificar'],
  eliminar: ['Motivo de la eliminación', 'eliminar'],
}

interface Props {
  module: string
  action: MotivoAction
  onAnswer: (motivo: string | null) => void
}

export function MotivoPrompt({ module, action, onAnswer }: Props) {
  const [title, verb] = WORDING[action]
  const [text, setText] = useState('')
  const input = useRef<HTMLInputElement>(null)
  useEffect(() => input.current?.focus(), [])
  const submit = (event: Event) => {
    event.preventDefault()
    if (text.trim() !== '') onAnswer(text.trim())
  }
  return html`<div class="backdrop">
    <section class="panel dialog" role="dialog" aria-modal="true" aria-labelledby="motivo-title">
      <h2 id="motivo-title">${title}</h2>
      <p>El servicio pide a su rol el motivo para ${verb} registros de ${module}. Queda registrado.</p>
      <form onSubmit=${submit}>
        <label for="motivo">Motivo</label>
        <input
          id="motivo"
          ref=${input}
          required
          maxlength="500"
          value=${text}
          onInput=${(e: Event) => setText((e.currentTarget as HTMLInputElement).value)}
        />
        <p class="actions">
          <button type="submit">Continuar</button>
          <button type="button" onClick=${() => onAnswer(null)}>Cancelar</button>
        </p>
      </form>
    </section>
  </div>`
}
