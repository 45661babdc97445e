// The question the API asks through its 400 (motivo_requerido): why is this record consulted.
import { useEffect, useRef, useState } from 'preact/hooks'
import { html } from './html.js'

export function MotivoPrompt({ module, onAnswer }: { module: string; onAnswer: (motivo: string | null) => void }) {
  const [text, setText] = useState('')
  const input = useRef<HTMLInputElement>(null)
  useEffect(() => input.current?.focus(), [])
  const submit = (event: Event) => {
    event.preventDefault()
    if (text.trim() !== '') onAnswer(text.trim())
  }
  return html`<div class="backdrop">
    <section class="panel dialog" role="dialog" aria-modal="true" aria-labelledby="motivo-title">
      <h2 id="motivo-title">Motivo de la consulta</h2>
      <p>El servicio pide a su rol el motivo para consultar ${module}. Queda registrado con la consulta.</p>
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
