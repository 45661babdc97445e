// Module definitions, read-only (D47): for a module and a user (the signed-in one by default),
// what that user may do there and the rule that decides each point, as GET
// /me/modulos/{modulo}/explicacion answers (the text `records explain` prints), and the module's
// fields and moves as the API shows them to the signed-in role. Offered when that API answers.
import { useEffect, useState } from 'preact/hooks'
import { call } from './api.js'
import { ErrorBox } from './error-box.js'
import { html } from './html.js'
import { labelOf, type ModuleView } from './module-view.js'

interface Explanation {
  readonly modulo: string
  readonly usuario: string
  readonly explicacion: readonly string[]
  readonly definicion: ModuleView | null
}

/** The first read of the screen: what screens.ts probes. */
export const explanationPath = (module: string, user = ''): string =>
  `/me/modulos/${encodeURIComponent(module)}/explicacion${user === '' ? '' : `?usuario=${encodeURIComponent(user)}`}`

const yes = (value: boolean) => (value ? 'sí' : 'no')

function Definition({ module }: { module: ModuleView }) {
  const moves = Object.entries(module.workflow?.movimientos ?? {})
  return html`<h2>Campos de ${module.descripcion}</h2>
    <div class="table-wrap" tabindex="0" role="region" aria-label="Campos del módulo">
      <table>
        <thead>
          <tr>
            ${['Campo', 'Tipo', 'Requerido', 'Lee', 'Escribe', 'Cifrado', 'Ordenable', 'Filtros'].map(
              (h) => html`<th scope="col">${h}</th>`,
            )}
          </tr>
        </thead>
        <tbody>
          ${module.campos.map(
            (c) =>
              html`<tr>
                <th scope="row">${labelOf(c.nombre)}</th>
                <td>${c.ayuda}</td>
                <td>${yes(c.requerido)}</td>
                <td>${yes(c.lee)}</td>
                <td>${yes(c.escribe)}</td>
                <td>${yes(c.cifrado)}</td>
                <td>${yes(c.ordenable)}</td>
                <td>${c.operadores.join(', ') || '—'}</td>
              </tr>`,
          )}
        </tbody>
      </table>
    </div>
    ${
      moves.length > 0 &&
      html`<h2>Cambios de estado (${module.workflow?.campo})</h2>
        <ul>
          ${moves.map(([from, to]) => html`<li>${from} → ${to.map((m) => m.a).join(', ') || 'ninguno'}</li>`)}
        </ul>`
    }`
}

export function Definitions({ modules }: { modules: readonly ModuleView[] }) {
  const [module, setModule] = useState(modules[0]?.nombre ?? '')
  const [user, setUser] = useState('')
  const [asked, setAsked] = useState({ module, user: '' })
  const [answer, setAnswer] = useState<Explanation | null>(null)
  const [error, setError] = useState<unknown>(null)

  useEffect(() => {
    setError(null)
    call<Explanation>('GET', explanationPath(asked.module, asked.user.trim()))
      .then(({ data }) => setAnswer(data))
      .catch((caught: unknown) => {
        setAnswer(null)
        setError(caught)
      })
  }, [asked])

  const value = (e: Event) => (e.currentTarget as HTMLInputElement).value
  const ask = (event: Event) => {
    event.preventDefault()
    setAsked({ module, user })
  }
  return html`<section aria-labelledby="defs-title">
    <h1 id="defs-title" tabindex="-1">Definiciones</h1>
    <p class="actions"><a href="#/">Inicio</a></p>
    <form class="filters" onSubmit=${ask} aria-label="Qué explicar">
      <span class="group">
        <label for="d-module">Módulo</label>
        <select id="d-module" value=${module} onChange=${(e: Event) => setModule(value(e))}>
          ${modules.map((m) => html`<option value=${m.nombre}>${m.descripcion}</option>`)}
        </select>
      </span>
      <span class="group">
        <label for="d-user">Usuario (id; vacío: usted)</label>
        <input id="d-user" value=${user} onInput=${(e: Event) => setUser(value(e))} />
      </span>
      <button type="submit">Explicar</button>
    </form>
    <${ErrorBox} error=${error} />
    ${
      answer !== null &&
      html`<h2>Qué puede hacer ${answer.usuario}</h2>
        <pre class="explain">${answer.explicacion.join('\n')}</pre>
        ${answer.definicion !== null && html`<${Definition} module=${answer.definicion} />`}`
    }
  </section>`
}
