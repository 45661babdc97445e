// Account management (D21, D42) through the accounts module's own endpoints, for roles the API
// lets list it: the accounts, a new one (the module's create form), and on an account its role,
// its active flag, a new password and the second factor's reset (`{segundo_factor: null}`).
// Which fields those are is read from GET /me/modulos: the `role` field, the `password` field
// and the module's one writable boolean. The API decides who may change whose account (a role
// the caller covers, its scope) and refuses the rest: the refusal is shown as worded.
import { useEffect, useState } from 'preact/hooks'
import { ErrorBox } from './error-box.js'
import { html } from './html.js'
import { Pager, usePaged } from './pager.js'
import { callFor } from './motivo.js'
import { labelOf, shown, type FieldView, type ModuleView, type RecordData } from './module-view.js'
import { Fields } from './record-page.js'

const PAGE = 50
const value = (e: Event) => (e.currentTarget as HTMLInputElement).value

const fieldOf = (module: ModuleView, test: (c: FieldView) => boolean) =>
  module.campos.find((c) => c.escribe && test(c))?.nombre

export function AccountList({ module }: { module: ModuleView }) {
  const columns = module.campos
    .filter((c) => c.lee && !c.cifrado && ['string', 'role', 'boolean'].includes(c.tipo))
    .slice(0, 5)

  const { offset, setOffset, page, error } = usePaged(
    (from) =>
      callFor<{ records: RecordData[]; total: number }>(
        module.nombre,
        'GET',
        `/${module.nombre}?limit=${PAGE}&offset=${from}`,
      ),
    [module.nombre],
  )

  return html`<section aria-labelledby="accounts-title">
    <h1 id="accounts-title" tabindex="-1">Gestión de cuentas</h1>
    <p class="actions">
      <a href="#/">Inicio</a>
      ${module.acciones.includes('crear') && html`<a class="button" href=${`#/m/${module.nombre}/nuevo`}>Nueva cuenta</a>`}
    </p>
    <${ErrorBox} error=${error} />
    ${
      page !== null &&
      html`<p role="status">${page.total} cuentas</p>
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">
              Cuentas
            </caption>
            <thead>
              <tr>
                <th scope="col">Id</th>
                ${columns.map((c) => html`<th scope="col">${labelOf(c.nombre)}</th>`)}
              </tr>
            </thead>
            <tbody>
              ${page.records.map(
                (r) =>
                  html`<tr>
                    <th scope="row"><a href=${`#/cuentas/${String(r['_id'])}`}>${String(r['_id'])}</a></th>
                    ${columns.map((c) => html`<td>${shown(r[c.nombre])}</td>`)}
                  </tr>`,
              )}
            </tbody>
          </table>
        </div>
        <${Pager} offset=${offset} size=${PAGE} total=${page.total} onOffset=${setOffset} />`
    }
  </section>`
}

export function AccountPage({ module, id }: { module: ModuleView; id: string }) {
  const path = `/${module.nombre}/${encodeURIComponent(id)}`
  const [account, setAccount] = useState<RecordData | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [notice, setNotice] = useState<string | null>(null)
  const [role, setRole] = useState('')
  const [password, setPassword] = useState('')
  const [resetting, setResetting] = useState(false)
  const roleField = fieldOf(module, (c) => c.tipo === 'role')
  const passwordField = fieldOf(module, (c) => c.tipo === 'password')
  const flags = module.campos.filter((c) => c.escribe && c.tipo === 'boolean')
  const activeField = flags.length === 1 ? flags[0]?.nombre : undefined

  useEffect(() => {
    callFor<RecordData>(module.nombre, 'GET', path)
      .then(({ data }) => setAccount(data))
      .catch(setError)
  }, [path])

  const put = (body: Record<string, unknown>, done: string) => {
    setError(null)
    setNotice(null)
    callFor<RecordData>(module.nombre, 'PUT', path, { body })
      .then(({ data }) => {
        setAccount(data)
        setNotice(done)
        setPassword('')
        setRole('')
      })
      .catch(setError)
      .finally(() => setResetting(false))
  }
  const submit = (field: string, text: string, done: string) => (event: Event) => {
    event.preventDefault()
    put({ [field]: text }, done)
  }
  const active = activeField === undefined ? undefined : account?.[activeField] !== false

  return html`<section aria-labelledby="account-title">
    <h1 id="account-title" tabindex="-1">Cuenta ${id}</h1>
    <p class="actions"><a href="#/cuentas">Volver a las cuentas</a></p>
    <${ErrorBox} error=${error} />
    ${notice !== null && html`<p role="status" class="notice">${notice}</p>`}
    ${account !== null && html`<${Fields} record=${account} title="Datos de la cuenta" />`}
    ${
      account !== null &&
      html`${
          roleField !== undefined &&
          html`<form class="panel" onSubmit=${submit(roleField, role, 'Rol cambiado')}>
            <h2>Rol</h2>
            <label for="acc-role">Nuevo rol</label>
            <input id="acc-role" autocomplete="off" required value=${role} onInput=${(e: Event) => setRole(value(e))} />
            <button type="submit">Cambiar el rol</button>
          </form>`
        }
        ${
          passwordField !== undefined &&
          html`<form class="panel" onSubmit=${submit(passwordField, password, 'Contraseña restablecida')}>
            <h2>Contraseña</h2>
            <label for="acc-password">Nueva contraseña</label>
            <input
              id="acc-password"
              type="password"
              autocomplete="new-password"
              required
              value=${password}
              onInput=${(e: Event) => setPassword(value(e))}
            />
            <button type="submit">Restablecer la contraseña</button>
          </form>`
        }
        <div class="panel">
          <h2>Acceso</h2>
          ${
            activeField !== undefined &&
            html`<p>
              <button
                type="button"
                onClick=${() => put({ [activeField]: !active }, active ? 'Cuenta desactivada' : 'Cuenta activada')}
              >
                ${active ? 'Desactivar la cuenta' : 'Activar la cuenta'}
              </button>
            </p>`
          }
          <p>
            ${
              resetting
                ? html`<span role="alert">El titular tendrá que dar de alta de nuevo su segundo factor. </span>
                    <button type="button" onClick=${() => put({ segundo_factor: null }, 'Segundo factor restablecido')}>
                      Confirmar el restablecimiento
                    </button>
                    <button type="button" onClick=${() => setResetting(false)}>Cancelar</button>`
                : html`<button type="button" onClick=${() => setResetting(true)}>Restablecer el segundo factor</button>`
            }
          </p>
        </div>`
    }
  </section>`
}
