// Password rules of the kind NIST SP 800-63B describes: a minimum length,
// no common, repetitive or sequential value, nothing built on the username; no composition
// rules and no forced expiry. bcrypt reads only the first 72 bytes of a password, so longer
// ones are refused instead of silently cut (a longer password would equal its first 72 bytes).
import type { ErrorDetail } from '../errors.js'

/** What bcrypt reads of a password; the rest would be ignored. */
export const PASSWORD_MAX_BYTES = 72
/** Every account. */
export const PASSWORD_MIN_LENGTH = 12
/** Accounts whose role may create or edit accounts (D21's administrador and superadmin). */
export const PASSWORD_MIN_LENGTH_ADMIN = 15

export interface PasswordContext {
  /** The account's username (canonical form); the password may not contain it. */
  readonly username: string
  /** The role may manage accounts: the stricter minimum applies. */
  readonly managesAccounts: boolean
  /** The shipped list of common passwords, in lower case (assets/common-passwords.txt). */
  readonly common: CommonPasswords
}

/** The list of common passwords as the rules ask it: a membership test (a Set, or one read on first use). */
export interface CommonPasswords {
  has(password: string): boolean
}

const utf8 = new TextEncoder()
export const passwordBytes = (password: string): number => utf8.encode(password).length

/** Characters as a person counts them: code points after NFC, not UTF-16 units. */
const lengthOf = (text: string): number => [...text.normalize('NFC')].length

/** One character repeated, or one short group repeated (`abcabcabcabc`). */
function isRepetitive(text: string): boolean {
  for (let unit = 1; unit <= 4; unit += 1) {
    const head = text.slice(0, unit)
    if (text.length >= unit * 3 && head.repeat(Math.ceil(text.length / unit)).slice(0, text.length) === text)
      return true
  }
  return false
}

/** Each character one after (or one before) the previous: `123456789012`, `abcdefghijkl`. */
function isSequential(text: string): boolean {
  const codes = [...text].map((c) => c.codePointAt(0) as number)
  const step = (codes[1] ?? 0) - (codes[0] ?? 0)
  if (step !== 1 && step !== -1) return false
  // A digit run may wrap (…7890123): count 9 -> 0 as a step too.
  return codes.every(
    (code, i) =>
      i === 0 ||
      code - (codes[i - 1] as number) === step ||
      (step === 1 && code === 48 && codes[i - 1] === 57) ||
      (step === -1 && code === 57 && codes[i - 1] === 48),
  )
}

const coreOf = (text: string): string => text.replace(/^[\p{P}\p{S}\s]+|[\p{P}\p{S}\s]+$/gu, '')

/** The password without digits and symbols around it: `Dragon2024!` -> `dragon`. */
const stemOf = (text: string): string => text.replace(/^[\p{N}\p{P}\p{S}\s]+|[\p{N}\p{P}\p{S}\s]+$/gu, '')

/**
 * Every rule the password breaks, as per-field details worded in Spanish for `field`; empty
 * when it is acceptable. Pure: the list of common passwords comes in the context.
 */
export function passwordProblems(password: string, context: PasswordContext, field = 'password'): ErrorDetail[] {
  const problems: string[] = []
  const min = context.managesAccounts ? PASSWORD_MIN_LENGTH_ADMIN : PASSWORD_MIN_LENGTH
  if (lengthOf(password) < min)
    problems.push(
      `La contraseña debe tener al menos ${min} caracteres${context.managesAccounts ? ' para un rol que gestiona cuentas' : ''}`,
    )
  if (passwordBytes(password) > PASSWORD_MAX_BYTES)
    problems.push(
      `La contraseña admite como máximo ${PASSWORD_MAX_BYTES} bytes en UTF-8 (una letra con tilde o una ñ ocupa 2)`,
    )
  const folded = password.normalize('NFC').toLowerCase()
  const username = context.username.normalize('NFC').toLowerCase().trim()
  if (context.common.has(folded) || context.common.has(stemOf(folded)))
    problems.push('La contraseña es demasiado común: está en la lista de contraseñas conocidas')
  // Also without the spaces and symbols around it: `            !` and `123456789012.` are no better.
  else if ([folded, coreOf(folded)].some((text) => text === '' || isRepetitive(text) || isSequential(text)))
    problems.push('La contraseña no puede ser una repetición ni una secuencia de caracteres')
  if (username !== '' && folded.includes(username))
    problems.push('La contraseña no puede contener el nombre de usuario')
  return problems.map((message) => ({ field, message }))
}
