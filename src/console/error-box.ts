// An API error as the API worded it, with its details, announced to screen readers.
import { ApiError } from './api.js'
import { html } from './html.js'

export function ErrorBox({ error }: { error: unknown }) {
  if (error === null || error === undefined) return null
  const message = error instanceof ApiError || error instanceof Error ? error.message : String(error)
  const details = error instanceof ApiError ? error.details : []
  return html`<div class="error" role="alert">
    <p>${message}</p>
    ${
      details.length > 0 &&
      html`<ul>
        ${details.map((d) => html`<li>${d.field === undefined ? '' : `${d.field}: `}${d.message}</li>`)}
      </ul>`
    }
  </div>`
}
