// What every write of an account must respect, whoever makes it (the API, `records user`,
// the first superadmin, POST /me/password): the username in its canonical form and the
// password policy (issue #13 item 4). Pure: the caller passes the list of common passwords.
import type { ServiceSpec } from '../compile/types.js'
import { validationFailed } from '../errors.js'
import { passwordProblems, type CommonPasswords } from './password-policy.js'

/**
 * The one spelling of a username: NFC, no surrounding spaces, lower case. Two usernames that
 * look alike (composed or decomposed accents, case, a trailing space) have the same form, so
 * the unique index keeps them from coexisting and login finds the account however typed.
 */
export const canonicalUsername = (username: string): string =>
  username.normalize('NFC').trim().toLowerCase().normalize('NFC')

export interface AccountRules {
  /** `values` with a canonical username; 400 naming each broken password rule. */
  check(values: Readonly<Record<string, unknown>>, before?: Readonly<Record<string, unknown>>): Record<string, unknown>
  /** 400 unless `password` is acceptable for the account `username` with `role`. */
  checkPassword(password: string, account: { readonly username: string; readonly role: string }, field?: string): void
  /** The role may create or edit accounts: its passwords need the stricter minimum. */
  managesAccounts(role: string): boolean
}

export function createAccountRules(service: ServiceSpec, common: CommonPasswords): AccountRules {
  const accounts = service.accounts
  const managesAccounts = (role: string): boolean => {
    const granted = service.roles.get(role)?.granted
    return (
      granted !== undefined && (granted.has(`${accounts.module}.crear`) || granted.has(`${accounts.module}.editar`))
    )
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
        out[accounts.username] = canonicalUsername(username)
        if (out[accounts.username] === '')
          throw validationFailed([
            { field: accounts.username, message: `El campo '${accounts.username}' no puede estar vacío` },
          ])
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
