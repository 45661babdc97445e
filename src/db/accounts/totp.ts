// TOTP as D42 fixes it (RFC 6238: SHA-1, 6 digits, 30-second steps), what every authenticator
// app reads, and the recovery codes that stand in for a lost phone. No I/O: the factor store
// keeps the secrets (encrypted) and the codes (hashed).
import { randomInt } from 'node:crypto'
import { Secret, TOTP } from 'otpauth'
import { sha256Hex } from '../canonical.js'

/** The issuer an authenticator app shows beside the account. */
export const TOTP_ISSUER = 'municipal-records'
const PERIOD_SECONDS = 30
const PARAMETERS = { issuer: TOTP_ISSUER, algorithm: 'SHA1', digits: 6, period: PERIOD_SECONDS } as const

/** A new secret in base32 (160 bits, RFC 4226's recommendation). */
export const newTotpSecret = (): string => new Secret({ size: 20 }).base32

/** The `otpauth://totp/...` URI of `secret` for `label` (the username), as a QR code carries it. */
export const totpUri = (secret: string, label: string): string =>
  new TOTP({ ...PARAMETERS, label, secret: Secret.fromBase32(secret) }).toString()

/** A six-digit code as typed: spaces allowed between the digits. */
export const looksLikeTotp = (code: string): boolean => /^\d{6}$/.test(code.replace(/\s/g, ''))

/**
 * The time step `code` belongs to, when it is valid at `now` (one step of drift either way);
 * undefined otherwise. The caller refuses a step not later than the last one accepted (replay).
 */
export function totpStep(secret: string, code: string, now: Date): number | undefined {
  const totp = new TOTP({ ...PARAMETERS, secret: Secret.fromBase32(secret) })
  const token = code.replace(/\s/g, '')
  const timestamp = now.getTime()
  const delta = totp.validate({ token, timestamp, window: 1 })
  return delta === null ? undefined : totp.counter({ timestamp }) + delta
}

export const RECOVERY_CODE_COUNT = 10
const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789' // no 0/o, 1/l/i: read aloud, typed by hand

/** Ten fresh recovery codes, `xxxx-xxxx-xxxx` (about 59 bits each). */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const chars = Array.from({ length: 12 }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)])
    return [chars.slice(0, 4), chars.slice(4, 8), chars.slice(8, 12)].map((g) => g.join('')).join('-')
  })
}

/** A recovery code as stored: its hash, bound to the account, any case and dashes or spaces ignored. */
export const recoveryCodeHash = (accountId: string, code: string): string =>
  sha256Hex(`${accountId}\n${code.toLowerCase().replace(/[\s-]/g, '')}`)
