// The signed-in user's own second factors (D42): the list (no secrets), a TOTP app enrolled with
// its secret and confirmed with a code, a passkey enrolled where the browser has WebAuthn, and a
// factor removed with a current code. The ten recovery codes of a first factor are shown once.
// An account whose role requires a factor it lacks reaches these routes only (the API decides).
import { useEffect, useState } from 'preact/hooks'
import { call } from './api.js'
import { ErrorBox } from './error-box.js'
import { html } from './html.js'
import { enrolPasskey, passkeysSupported } from './passkey.js'

interface Factor {
  readonly id: string
  readonly tipo: 'totp' | 'passkey'
  readonly confirmado_en: string
}

interface Factors {
  readonly factores: readonly Factor[]
  readonly recuperacion_restantes: number
}

const KINDS = { totp: 'Aplicación de autenticación (TOTP)', passkey: 'Llave de acceso' } as const
const value = (e: Event) => (e.currentTarget as HTMLInputElement).value

/** The recovery codes of a first factor: shown here once, never again by the service. */
function RecoveryCodes({ codes }: { codes: readonly string[] }) {
  return html`<section class="panel" aria-labelledby="codes-title">
    <h2 id="codes-title">Códigos de recuperación</h2>
    <p role="alert">
      Guárdelos ahora en un lugar seguro: no se volverán a mostrar. Cada uno sirve una vez en lugar del código de la
      aplicación o de la llave de acceso.
    </p>
    <ul class="codes">
      ${codes.map((c) => html`<li><code>${c}</code></li>`)}
    </ul>
  </section>`
}

/** A TOTP enrolment: the secret and its otpauth URI, then the app's code confirms it. */
function TotpEnrolment({ onDone }: { onDone: (codes: readonly string[]) => void }) {
  const [secret, setSecret] = useState<{ secreto: string; uri: string } | null>(null)
  const [code, setCode] = useState('')
  const [error, setError] = useState<unknown>(null)
  const start = () => {
    setError(null)
    call<{ secreto: string; uri: string }>('POST', '/me/segundo-factor/totp')
      .then(({ data }) => setSecret(data))
      .catch(setError)
  }
  const confirm = (event: Event) => {
    event.preventDefault()
    setError(null)
    call<{ recuperacion: string[] }>('POST', '/me/segundo-factor/totp/confirmar', { body: { codigo: code } })
      .then(({ data }) => onDone(data.recuperacion))
      .catch(setError)
  }
  if (secret === null)
    return html`<p><button type="button" onClick=${start}>Añadir aplicación de autenticación</button></p>
      <${ErrorBox} error=${error} />`
  return html`<form onSubmit=${confirm} aria-labelledby="totp-title">
    <h2 id="totp-title">Alta de la aplicación de autenticación</h2>
    <p>Añada la cuenta en su aplicación con esta clave (o con el enlace otpauth) y escriba el código que muestra.</p>
    <dl>
      <dt>Clave</dt>
      <dd><code class="secret">${secret.secreto}</code></dd>
      <dt>Enlace otpauth</dt>
      <dd><code class="secret">${secret.uri}</code></dd>
    </dl>
    <label for="totp-code">Código de la aplicación</label>
    <input
      id="totp-code"
      autocomplete="one-time-code"
      inputmode="numeric"
      required
      value=${code}
      onInput=${(e: Event) => setCode(value(e))}
    />
    <${ErrorBox} error=${error} />
    <button type="submit">Confirmar</button>
  </form>`
}

/** One factor's row: removing it asks for a current code first. */
function FactorRow({ factor, onRemoved }: { factor: Factor; onRemoved: () => void }) {
  const [asking, setAsking] = useState(false)
  const [code, setCode] = useState('')
  const [error, setError] = useState<unknown>(null)
  const remove = (event: Event) => {
    event.preventDefault()
    setError(null)
    call('DELETE', `/me/segundo-factor/${encodeURIComponent(factor.id)}`, { body: { codigo: code } })
      .then(onRemoved)
      .catch(setError)
  }
  return html`<tr>
    <th scope="row">${KINDS[factor.tipo]}</th>
    <td>${factor.confirmado_en}</td>
    <td>
      ${
        asking
          ? html`<form class="inline" onSubmit=${remove}>
              <label for=${`remove-${factor.id}`}>Código actual (aplicación o recuperación)</label>
              <input
                id=${`remove-${factor.id}`}
                autocomplete="one-time-code"
                required
                value=${code}
                onInput=${(e: Event) => setCode(value(e))}
              />
              <button type="submit">Quitar</button>
              <${ErrorBox} error=${error} />
            </form>`
          : html`<button type="button" onClick=${() => setAsking(true)}>Quitar</button>`
      }
    </td>
  </tr>`
}

export function SecondFactor() {
  const [factors, setFactors] = useState<Factors | null>(null)
  const [codes, setCodes] = useState<readonly string[] | null>(null)
  const [notice, setNotice] = useState<string | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [round, setRound] = useState(0)

  useEffect(() => {
    call<Factors>('GET', '/me/segundo-factor')
      .then(({ data }) => setFactors(data))
      .catch(setError)
  }, [round])

  const changed = (message: string, recovery?: readonly string[]) => {
    setNotice(message)
    setCodes(recovery ?? null)
    setRound((r) => r + 1)
  }
  const addPasskey = () => {
    setError(null)
    enrolPasskey()
      .then((data) => changed('Llave de acceso dada de alta.', data.recuperacion))
      .catch(setError)
  }
  const hasTotp = factors?.factores.some((f) => f.tipo === 'totp') ?? false

  return html`<section aria-labelledby="factor-title">
    <h1 id="factor-title" tabindex="-1">Segundo factor</h1>
    ${notice !== null && html`<p class="notice" role="status">${notice}</p>`}
    ${codes !== null && html`<${RecoveryCodes} codes=${codes} />`}
    <${ErrorBox} error=${error} />
    ${
      factors !== null &&
      html`${
          factors.factores.length === 0
            ? html`<p>La cuenta no tiene ningún segundo factor.</p>`
            : html`<table>
                <caption>
                  Factores de la cuenta
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Tipo</th>
                    <th scope="col">Confirmado el</th>
                    <th scope="col">Acciones</th>
                  </tr>
                </thead>
                <tbody>
                  ${factors.factores.map(
                    (f) =>
                      html`<${FactorRow}
                        key=${f.id}
                        factor=${f}
                        onRemoved=${() => changed('Segundo factor quitado.')}
                      />`,
                  )}
                </tbody>
              </table>`
        }
        <p>Códigos de recuperación sin usar: ${factors.recuperacion_restantes}.</p>
        ${!hasTotp && html`<${TotpEnrolment} onDone=${(c: readonly string[]) => changed('Aplicación de autenticación dada de alta.', c)} />`}
        ${
          passkeysSupported() &&
          html`<p><button type="button" onClick=${addPasskey}>Añadir llave de acceso</button></p>`
        }`
    }
  </section>`
}
