// The previous and next buttons under a paged table: every list screen pages the same way.
import { html } from './html.js'

export function Pager({
  offset,
  size,
  total,
  onOffset,
}: {
  offset: number
  size: number
  total: number
  onOffset: (offset: number) => void
}) {
  return html`<nav class="pager" aria-label="Páginas">
    <button type="button" disabled=${offset === 0} onClick=${() => onOffset(Math.max(0, offset - size))}>
      Anterior
    </button>
    <button type="button" disabled=${offset + size >= total} onClick=${() => onOffset(offset + size)}>Siguiente</button>
  </nav>`
}
