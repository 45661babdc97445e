// The modules the signed-in role may list, as GET /me/modulos gives them, and the administration
// screens the API lets the role use (screens.ts).
import { html } from './html.js'
import type { ModuleView } from './module-view.js'
import type { Screens } from './screens.js'

export function ModuleList({ modules, screens }: { modules: readonly ModuleView[]; screens: Screens }) {
  const admin = [
    screens.auditoria && html`<li><a href="#/auditoria">Auditoría y consultas</a></li>`,
    screens.retencion && html`<li><a href="#/retencion">Conservación y retenciones</a></li>`,
    screens.cuentas !== undefined && html`<li><a href="#/cuentas">Gestión de cuentas</a></li>`,
    screens.definiciones && html`<li><a href="#/definiciones">Definiciones</a></li>`,
  ].filter((item) => item !== false)
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
    ${
      admin.length > 0 &&
      html`<h2>Administración</h2>
        <ul class="admin">
          ${admin}
        </ul>`
    }
  </section>`
}
