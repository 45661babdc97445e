// The modules the signed-in role may list, as GET /me/modulos gives them.
import { html } from './html.js'
import type { ModuleView } from './module-view.js'

export function ModuleList({ modules }: { modules: readonly ModuleView[] }) {
  return html`<section aria-labelledby="modules-title">
    <h1 id="modules-title" tabindex="-1">Módulos</h1>
    ${modules.length === 0 && html`<p>Su rol no puede ver ningún módulo.</p>`}
    <ul class="modules">
      ${modules.map(
        (m) =>
          html`<li>
            <a href=${`#/m/${m.nombre}`}>${m.descripcion}</a>
            <span class="muted"> (${m.acciones.join(', ')})</span>
          </li>`,
      )}
    </ul>
  </section>`
}
