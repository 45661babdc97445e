// D42's passkey tests in Chromium: a service whose `jefe` role requires a passkey, on an origin
// known before it starts (localhost: browsers refuse an address as a relying party), and a
// virtual authenticator (DevTools' WebAuthn domain: CTAP2, internal, resident keys, user verified).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { CDPSession, Page } from 'playwright-core'
import type { Test } from 'tap'
import { REPO_MODULES } from '../../helpers/api.js'
import { freePort } from '../../helpers/free-port.js'

/** The shipped modules.yaml with `jefe` requiring a passkey, in a temp dir of the test. */
export function modulesRequiringPasskey(t: Test): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'records-passkey-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'modules.yaml')
  writeFileSync(
    file,
    readFileSync(REPO_MODULES, 'utf8').replace('\n  jefe:\n', '\n  jefe:\n    segundo_factor: passkey\n'),
  )
  return { MODULES_FILE: file }
}

/** A free port, its `http://localhost:port` origin and the environment that names it the relying party. */
export async function passkeyOrigin(t: Test): Promise<{ port: number; origin: string; env: Record<string, string> }> {
  const port = await freePort()
  const origin = `http://localhost:${port}`
  return { port, origin, env: { WEBAUTHN_RP_ID: 'localhost', WEBAUTHN_ORIGIN: origin, ...modulesRequiringPasskey(t) } }
}

/** A virtual authenticator on `page`, as a laptop's built-in one: it answers without a prompt. */
export async function virtualAuthenticator(page: Page): Promise<{ cdp: CDPSession; authenticatorId: string }> {
  const cdp = await page.context().newCDPSession(page)
  await cdp.send('WebAuthn.enable')
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
    },
  })
  return { cdp, authenticatorId }
}
