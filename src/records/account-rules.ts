// What every write of an account must respect, whoever makes it (the API, `records user`,
// the first superadmin, POST /me/password): the username in its canonical form and safe
// alphabet (F8) and the password policy. Pure: the caller passes the list
// of common passwords.
import { managesAccounts as managesRoleAccounts } from '../compile/permissions.js'
import type { ServiceSpec } from '../compile/types.js'
import { validationFailed } from '../errors.js'
import { passwordProblems, type CommonPasswords } from './password-policy.js'

/** Code points that show nothing: zero-width space and joiners, soft hyphen, BOM, bidi marks and controls. */
const INVISIBLE = /\p{Default_Ignorable_Code_Point}/gu

/**
 * The one spelling of a username: NFKC (full-width and compatibility forms become their plain
 * letters), invisible code points removed, no surrounding spaces, lower case. Two usernames that
 * look alike that way have the same form, so the unique index keeps them from coexisting and
 * login finds the account however typed (F8). Other scripts' look-alikes are refused on write
 * by `usernameProblem`.
 */
export const canonicalUsername = (username: string): string =>
  username.replace(INVISIBLE, '').normalize('NFKC').trim().toLowerCase().normalize('NFKC').replace(INVISIBLE, '')

/** Letters a username may hold besides a-z: Spanish ones and those of Spain's other official languages. */
const ACCENTED = 'áéíóúüñàèòïç'
const USERNAME_PATTERN = new RegExp(`^[a-z0-9${ACCENTED}][a-z0-9${ACCENTED}._-]*$`, 'u')
const USERNAME_CHARACTER = new RegExp(`^[a-z0-9${ACCENTED}._-]$`, 'u')

/** What a username may be made of, worded for the 400 (F8). */
export const USERNAME_RULE =
  `solo admite letras latinas (a-z y ${[...ACCENTED].join(' ')}), cifras, '.', '_' y '-', ` +
  'y empieza por una letra o una cifra'

/**
 * Why a canonical username is refused, or undefined when it is acceptable: a safe alphabet
 * rather than a list of confusables, so a Cyrillic `а` or a Greek `ο` among Latin letters can
 * never pass for its Latin twin (F8).
 */
export function usernameProblem(canonical: string, field: string): string | undefined {
  if (USERNAME_PATTERN.test(canonical)) return undefined
  const odd = [...canonical].find((c) => !USERNAME_CHARACTER.test(c))
  const code = (c: string) => `U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`
  return `El campo '${field}' ${USERNAME_RULE}${odd === undefined ? '' : ` (no admite '${odd}', ${code(odd)})`}`
}

export interface AccountRules {
  /** `values` with a canonical username; 400 for a username outside the rule or each broken password rule. */
  check(values: Readonly<Record<string, unknown>>, before?: Readonly<Record<string, unknown>>): Record<string, unknown>
  /** 400 unless `password` is acceptable for the account `username` with `role`. */
  checkPassword(password: string, account: { readonly username: string; readonly role: string }, field?: string): void
  /** The role may create or edit accounts: its passwords need the stricter minimum. */
  managesAccounts(role: string): boolean
}

export function createAccountRules(service: ServiceSpec, common: CommonPasswords): AccountRules {
  const accounts = service.accounts
  const managesAccounts = (role: string): boolean => {
    const spec = service.roles.get(role)
    return spec !== undefined && managesRoleAccounts(spec, accounts.module)
  }
  const checkPassword: AccountRules['checkPassword'] = (password, account, field = accounts.password) => {
    const problems = passwordProblems(
      password,
      { username: account.username, managesAccounts: managesAccounts(account.role), common },
      field,
    )
    if (problems.length > 0) throw validationFailed(problems)
  }
  return {
    managesAccounts,
    checkPassword,
    check(values, before = {}) {
      const out = { ...values }
      const username = out[accounts.username]
      if (typeof username === 'string') {
        const canonical = canonicalUsername(username)
        out[accounts.username] = canonical
        if (canonical === '')
          throw validationFailed([
            { field: accounts.username, message: `El campo '${accounts.username}' no puede estar vacío` },
          ])
        // An account kept from before the rule may be sent back with its own username unchanged (F8).
        const problem =
          canonical === before[accounts.username] ? undefined : usernameProblem(canonical, accounts.username)
        if (problem !== undefined) throw validationFailed([{ field: accounts.username, message: problem }])
      }
      const password = out[accounts.password]
      if (typeof password === 'string') {
        const name = out[accounts.username] ?? before[accounts.username]
        const role = out[accounts.role] ?? before[accounts.role]
        checkPassword(password, {
          username: typeof name === 'string' ? name : '',
          role: typeof role === 'string' ? role : '',
        })
      }
      return out
    },
  }
}
