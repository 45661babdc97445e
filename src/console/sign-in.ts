// Sign-in: user and password; when the account has a second factor the API answers
// 401 `Se requiere segundo factor` and the code is asked for, then the same login again with it.
// Where the browser has WebAuthn, a passkey signs in alone: both factors at once (D42).
import { useEffect, useRef, useState } from 'preact/hooks'
import { ApiError, MESSAGES, call, session, type SessionUser } from './api.js'
import { ErrorBox } from './error-box.js'
import { html } from './html.js'
import { passkeysSupported, signInWithPasskey } from './passkey.js'

interface LoginAnswer {
  readonly token: string
  readonly user: SessionUser
}

export function SignIn({ notice, onSignedIn }: { notice: string | null; onSignedIn: () => void }) {
  const [username, setUsername] = useState('')
  const [password, setPassword] = useState('')
  const [code, setCode] = useState('')
  const [needsCode, setNeedsCode] = useState(false)
  const [methods, setMethods] = useState<readonly string[]>([])
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const codeInput = useRef<HTMLInputElement>(null)
  // The code is asked for after the password: the focus goes to it.
  useEffect(() => {
    if (needsCode) codeInput.current?.focus()
  }, [needsCode])

  const signIn = async (login: () => Promise<LoginAnswer>) => {
    setBusy(true)
    setError(null)
    try {
      const data = await login()
      session.start(data.token, data.user)
      onSignedIn()
    } catch (caught) {
      if (caught instanceof ApiError && caught.message === MESSAGES.secondFactor && !needsCode) {
        setMethods(caught.details.flatMap((d) => d.metodos ?? []))
        setNeedsCode(true)
      } else setError(caught)
    } finally {
      setBusy(false)
    }
  }
  const submit = (event: Event) => {
    event.preventDefault()
    const body = needsCode ? { username, password, codigo: code } : { username, password }
    return signIn(async () => (await call<LoginAnswer>('POST', '/auth/login', { body })).data)
  }
  const withPasskey = passkeysSupported() ? () => signIn(() => signInWithPasskey<LoginAnswer>()) : undefined
  // A passkey-only account (no TOTP) is asked for the passkey, or a recovery code.
  const codeHint = methods.includes('totp')
    ? 'escriba el código de su aplicación o uno de recuperación'
    : 'escriba uno de sus códigos de recuperación'
  const field = (e: Event) => (e.currentTarget as HTMLInputElement).value

  return html`<section class="panel narrow" aria-labelledby="sign-in-title">
    <h1 id="sign-in-title" tabindex="-1">Iniciar sesión</h1>
    ${notice !== null && html`<p class="notice" role="status">${notice}</p>`}
    <form onSubmit=${submit}>
      <label for="username">Usuario</label>
      <input
        id="username"
        name="username"
        autocomplete="username"
        required
        value=${username}
        onInput=${(e: Event) => setUsername(field(e))}
      />
      <label for="password">Contraseña</label>
      <input
        id="password"
        name="password"
        type="password"
        autocomplete="current-password"
        required
        value=${password}
        onInput=${(e: Event) => setPassword(field(e))}
      />
      ${
        needsCode &&
        html`<p role="status">
            La cuenta tiene segundo factor:
            ${codeHint}${
              methods.includes('passkey') && withPasskey !== undefined ? ', o entre con su llave de acceso' : ''
            }.
          </p>
          <label for="codigo">Código de segundo factor</label>
          <input
            id="codigo"
            ref=${codeInput}
            name="codigo"
            autocomplete="one-time-code"
            required
            value=${code}
            onInput=${(e: Event) => setCode(field(e))}
          />`
      }
      <${ErrorBox} error=${error} />
      <button type="submit" disabled=${busy}>Entrar</button>
    </form>
    ${
      withPasskey !== undefined &&
      html`<p class="alternative">
        <button type="button" disabled=${busy} onClick=${withPasskey}>Iniciar sesión con llave de acceso</button>
      </p>`
    }
  </section>`
}
