// Hand-made JWTs, so the tests can present tokens the service never issued (D20).
import { createHmac, randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

const encode = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url')

/** The signing secret the service generated into its data directory (D1). */
export const secretOf = (dataDir: string): string => readFileSync(join(dataDir, 'jwt-secret'), 'utf8').trim()

export interface ForgeOptions {
  readonly secret: string
  readonly claims?: Record<string, unknown>
  readonly header?: Record<string, unknown>
  /** false: no signature at all (`alg: none`). */
  readonly sign?: boolean
}

/** A JWT with `sub`, a fresh `jti`, iat now and exp in an hour unless `claims` say otherwise. */
export function forgeToken({
  secret,
  claims = {},
  header = { alg: 'HS256', typ: 'JWT' },
  sign = true,
}: ForgeOptions): string {
  const now = Math.floor(Date.now() / 1000)
  const body = `${encode(header)}.${encode({ jti: randomUUID(), iat: now, exp: now + 3600, ...claims })}`
  return sign ? `${body}.${createHmac('sha256', secret).update(body).digest('base64url')}` : `${body}.`
}
