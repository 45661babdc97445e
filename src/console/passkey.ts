// Passkeys in the browser (D42): the two WebAuthn ceremonies, with the browser's own JSON
// conversions of the API's options and of the authenticator's answer. The service checks the
// answer; the console only carries it.
import { call } from './api.js'

/** The browser has WebAuthn with its JSON conversions (current Chromium, Firefox, Safari). */
export const passkeysSupported = (): boolean =>
  typeof PublicKeyCredential !== 'undefined' && typeof PublicKeyCredential.parseRequestOptionsFromJSON === 'function'

/** What the user reads when the browser or the authenticator did not complete a ceremony. */
export function passkeyProblem(caught: unknown): string {
  const name = caught instanceof DOMException ? caught.name : ''
  if (name === 'NotAllowedError')
    return 'La llave de acceso no respondió o se canceló la operación. Inténtelo de nuevo.'
  if (name === 'InvalidStateError') return 'Esta llave de acceso ya está dada de alta en la cuenta.'
  return 'El navegador no pudo usar la llave de acceso.'
}

/** A browser's failure as a message; the API's refusals pass through unchanged. */
async function ceremony<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run()
  } catch (caught) {
    throw caught instanceof DOMException ? passkeyProblem(caught) : caught
  }
}

/** Enrols a passkey on the signed-in account: `{id, recuperacion?}` as the API answers. */
export async function enrolPasskey(): Promise<{ id: string; recuperacion?: string[] }> {
  const { data: options } = await call<PublicKeyCredentialCreationOptionsJSON>(
    'POST',
    '/me/segundo-factor/passkey/opciones',
  )
  const answer = await ceremony(async () => {
    const credential = await navigator.credentials.create({
      publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options),
    })
    return (credential as PublicKeyCredential).toJSON()
  })
  return (await call<{ id: string; recuperacion?: string[] }>('POST', '/me/segundo-factor/passkey', { body: answer }))
    .data
}

/** Signs in with a passkey the authenticator holds (no user name, no password): the login's answer. */
export async function signInWithPasskey<T>(): Promise<T> {
  const { data: options } = await call<PublicKeyCredentialRequestOptionsJSON>('POST', '/auth/login/passkey/opciones')
  const answer = await ceremony(async () => {
    const credential = await navigator.credentials.get({
      publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(options),
    })
    return (credential as PublicKeyCredential).toJSON()
  })
  return (await call<T>('POST', '/auth/login/passkey', { body: answer })).data
}
