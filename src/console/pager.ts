// The previous and next buttons under a paged table, and the page they show: every list screen
// pages the same way.
import { useEffect, useState } from 'preact/hooks'
import type { Answer } from './api.js'
import { html } from './html.js'

/**
 * The page `load` answers for the current offset, loaded again whenever the offset or one of
 * `inputs` (the screen's applied filters) changes; a refusal empties the page and is kept to show.
 */
export function usePaged<T>(load: (offset: number) => Promise<Answer<T>>, inputs: readonly unknown[]) {
  const [offset, setOffset] = useState(0)
  const [page, setPage] = useState<T | null>(null)
  const [error, setError] = useState<unknown>(null)
  useEffect(() => {
    setError(null)
    load(offset)
      .then(({ data }) => setPage(data))
      .catch((caught: unknown) => {
        setPage(null)
        setError(caught)
      })
  }, [...inputs, offset])
  return { offset, setOffset, page, error }
}

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
