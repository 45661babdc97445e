// Usernames written before they were canonical: at startup each live
// account's username is rewritten to its canonical form through the record store (new
// version, `_hash` and an 'editar' audit entry by `sistema`). Two live accounts whose
// usernames have one canonical form cannot both keep it: the start is refused, naming them,
// until an operator renames or deletes one (`records user rename`). Since F8 the canonical form
// is NFKC without invisible code points; live accounts whose username falls outside the safe
// alphabet (another script, a space, an `@`) keep it and keep logging in, and are reported so
// that an operator renames them: locking them out silently would stop a person's work.
import { META } from '../../compile/metadata.js'
import { usernameCollision } from '../../errors.js'
import type { AccountsSpec } from '../../compile/types.js'
import { canonicalUsername, usernameProblem } from '../../records/account-rules.js'
import type { Database } from '../database.js'
import type { RecordStore } from '../records/types.js'

export interface UsernameMigration {
  /** One line per account whose username was rewritten. */
  readonly changed: string[]
  /** One line per live account whose username breaks the rule of F8, naming it and the remedy. */
  readonly warnings: string[]
}

/** Rewrites non-canonical usernames and names those outside the safe alphabet. */
export async function canonicalizeUsernames(
  database: Database,
  accounts: AccountsSpec,
  store: RecordStore,
): Promise<UsernameMigration> {
  const rows = await database.db
    .selectFrom(accounts.spec.table.name)
    .select([META.id, accounts.username])
    .where(META.deleted, 'is', null)
    .orderBy(META.id)
    .execute()
  const groups = new Map<string, { id: string; username: string }[]>()
  for (const row of rows) {
    const username = String(row[accounts.username] ?? '')
    const key = canonicalUsername(username)
    groups.set(key, [...(groups.get(key) ?? []), { id: String(row[META.id]), username }])
  }
  const collisions = [...groups.values()].filter((group) => group.length > 1)
  if (collisions.length > 0) {
    const named = collisions.map((group) => group.map((a) => `'${a.username}' (${a.id})`).join(' y ')).join('; ')
    throw usernameCollision(
      'Hay cuentas cuyos usuarios solo se distinguen por mayúsculas, tildes, espacios, caracteres invisibles ' +
        `o de ancho completo: ${named}. ` +
        'Renombre o elimine una de cada grupo (records user rename <id o usuario> <nuevo>) y vuelva a arrancar.',
    )
  }
  const changed: string[] = []
  for (const [canonical, [account]] of groups) {
    if (account === undefined || account.username === canonical) continue
    await store.update(
      accounts.spec,
      account.id,
      { [accounts.username]: canonical },
      { actor: 'sistema', reveal: false, user: null },
    )
    changed.push(`usuario '${account.username}' de ${account.id} escrito como '${canonical}'`)
  }
  const warnings = [...groups.entries()].flatMap(([canonical, [account]]) =>
    account === undefined || usernameProblem(canonical, accounts.username) === undefined
      ? []
      : [
          `La cuenta ${account.id} tiene el usuario '${canonical}', que no cumple la regla de usuarios ` +
            `(${usernameProblem(canonical, accounts.username) ?? ''}): puede seguir iniciando sesión, ` +
            `pero conviene renombrarla (records user rename ${account.id} <nuevo>)`,
        ],
  )
  return { changed, warnings }
}
