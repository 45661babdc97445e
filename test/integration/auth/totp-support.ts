// D42's tests: a clock they move, the codes an authenticator app would show, an enrolment.
import { Secret, TOTP } from 'otpauth'
import type { TestApi } from '../../helpers/api.js'

export function controlledClock(start = '2026-11-27T10:00:00.000Z') {
  let now = Date.parse(start)
  return { clock: () => new Date(now), advance: (seconds: number) => void (now += seconds * 1000) }
}

/** The code an authenticator app shows for `secret` at `at`. */
export const totpCode = (secret: string, at: Date): string =>
  new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({
    timestamp: at.getTime(),
  })

/** Enrols and confirms a TOTP for `token`'s account: its secret and recovery codes. */
export async function enrolTotp(api: TestApi, token: string, at: Date): Promise<{ secret: string; codes: string[] }> {
  const started = await api.request('POST', '/me/segundo-factor/totp', { token })
  if (started.status !== 201) throw new Error(`enrol: ${started.status} ${JSON.stringify(started.body)}`)
  const secret = started.body.data.secreto as string
  const confirmed = await api.request('POST', '/me/segundo-factor/totp/confirmar', {
    token,
    body: { codigo: totpCode(secret, at) },
  })
  if (confirmed.status !== 200) throw new Error(`confirm: ${confirmed.status} ${JSON.stringify(confirmed.body)}`)
  return { secret, codes: confirmed.body.data.recuperacion as string[] }
}
