// `records user add|list|passwd|disable|enable|role|rename|factor-reset`: accounts without the
// API (the first superadmin, a locked-out administrator). Same validation, password hashing
// (D22), record hash and audit chain as the API's writes; the audit names the actor
// `cli:<os user>`.
import { META } from '../../compile/metadata.js'
import type { AccountsSpec } from '../../compile/types.js'
import { createBodyAjv, createBodyValidator, type BodyValidator } from '../../records/body-validator.js'
import { JSON_OPTION, flag, stringOption, type Command, type CommandInput } from '../command.js'
import { cellValue } from '../cell-value.js'
import { withEnvironment, type Environment } from '../environment.js'
import { printJson, printLines } from '../output.js'
import { PASSWORD_OPTIONS, readNewPassword } from '../password.js'
import { commandFailed, usageError } from '../../errors.js'
import { didYouMean } from '../../config/suggest.js'
import { factorReset } from './user-factor.js'

const validatorOf = (env: Environment): BodyValidator => createBodyValidator(env.spec.accounts.spec, createBodyAjv())

/**
 * The account spelled exactly so (an account written before usernames were canonical), else the
 * account of that id (a username outside the rule of F8 may be hard to type), else any spelling.
 */
async function accountId(env: Environment, username: string): Promise<string> {
  const accounts = env.spec.accounts
  const live = (column: string) =>
    env.database.db
      .selectFrom(accounts.spec.table.name)
      .select(META.id)
      .where(META.deleted, 'is', null)
      .where(column, '=', username)
      .executeTakeFirst()
  const exact = (await live(accounts.username)) ?? (await live(META.id))
  if (exact !== undefined) return String(exact[META.id])
  const found = await env.accounts.credentials(username)
  if (found === undefined) throw commandFailed(`No existe ninguna cuenta con el usuario '${username}'`)
  return found.id
}

/** Applies validated changes to one account through the record store. */
async function updateAccount(
  input: CommandInput,
  changes: (accounts: AccountsSpec, env: Environment) => Record<string, unknown>,
  done: string | ((after: Record<string, unknown>, accounts: AccountsSpec) => string),
): Promise<number> {
  const [username = ''] = input.positionals
  return withEnvironment(input, async (env) => {
    const id = await accountId(env, username)
    const values = validatorOf(env).update(changes(env.spec.accounts, env))
    // The username and password rules, on the account as the write locks it (no read before).
    const after = await env.store.update(env.spec.accounts.spec, id, values, {
      actor: env.actor,
      reveal: false,
      user: null,
      hook: (change) => (change.after === undefined ? undefined : env.accountRules.check(change.after, change.before)),
    })
    printLines(input, [typeof done === 'string' ? `${done}: '${username}' (${id})` : done(after, env.spec.accounts)])
    return 0
  })
}

/** A role of modules.yaml, or a usage error naming the roles and the closest one. */
function knownRole(env: Environment, role: string | undefined): string | undefined {
  const roles = [...env.spec.roles.keys()]
  if (role === undefined || roles.includes(role)) return role
  throw commandFailed(`El rol '${role}' no existe (roles: ${roles.join(', ')}).${didYouMean(role, roles)}`)
}

function fieldArguments(env: Environment, raw: readonly unknown[]): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const item of raw) {
    const text = String(item)
    const at = text.indexOf('=')
    if (at < 1) throw usageError(`--field espera nombre=valor (recibido '${text}')`)
    const name = text.slice(0, at)
    out[name] = cellValue(env.spec.accounts.spec.fieldsByName.get(name), text.slice(at + 1))
  }
  return out
}

const add: Command = {
  name: 'user add',
  summary: 'Crea una cuenta de usuario (contraseña por terminal o --password-stdin)',
  help: `
Uso: records user add <usuario> --role <rol> [--field nombre=valor ...] [--password-stdin]

Crea una cuenta en el módulo de cuentas de modules.yaml con las mismas comprobaciones que
POST /api/<cuentas>. La contraseña se pide dos veces en la terminal sin mostrarla, o se lee
de la primera línea de la entrada estándar con --password-stdin; nunca como argumento.
Los demás campos obligatorios del módulo de cuentas van con --field (repetible).

Ejemplo: printf '%s\\n' "$PASS" | records user add jgarcia --role superadmin \\
           --field nombre='Juana García' --password-stdin`,
  options: { role: { type: 'string' }, field: { type: 'string', multiple: true }, ...PASSWORD_OPTIONS },
  positionals: { min: 1, max: 1 },
  async run(input) {
    const role = stringOption(input, 'role')
    if (role === undefined) throw usageError('Falta --role <rol>')
    const password = await readNewPassword(input)
    return withEnvironment(input, async (env) => {
      const accounts = env.spec.accounts
      const values = env.accountRules.check(
        validatorOf(env).create({
          ...fieldArguments(env, (input.values['field'] as unknown[] | undefined) ?? []),
          [accounts.username]: input.positionals[0],
          [accounts.password]: password,
          [accounts.role]: knownRole(env, role),
        }),
      )
      const record = await env.store.create(accounts.spec, values, { actor: env.actor, reveal: false, user: null })
      printLines(input, [
        `Cuenta creada: '${String(record[accounts.username])}' (${String(record[META.id])}) con el rol '${role}'`,
      ])
      return 0
    })
  },
}

const list: Command = {
  name: 'user list',
  summary: 'Lista las cuentas (usuario, rol, activa)',
  help: `
Uso: records user list [--json]

Lista las cuentas vigentes (no eliminadas) con su id, usuario, rol y si están activas.
  --json   [{"_id", "username", "role", "active", "profile": {...}}]`,
  options: JSON_OPTION,
  positionals: { min: 0, max: 0 },
  async run(input) {
    return withEnvironment(input, async (env) => {
      const accounts = env.spec.accounts
      const rows = await env.database.db
        .selectFrom(accounts.spec.table.name)
        .selectAll()
        .where(META.deleted, 'is', null)
        .orderBy(accounts.username)
        .execute()
      const users = rows.map((row) => {
        const record = env.codec.decode(accounts.spec, row, false)
        return {
          [META.id]: record[META.id],
          username: record[accounts.username],
          role: record[accounts.role],
          active: record[accounts.active] !== false,
          profile: Object.fromEntries(accounts.profile.map((f) => [f, record[f] ?? null])),
        }
      })
      if (flag(input, 'json')) printJson(input, users)
      else
        printLines(
          input,
          users.map(
            (u) =>
              `${String(u[META.id])}  ${String(u.username)}  ${String(u.role)}  ${u.active ? 'activa' : 'desactivada'}`,
          ),
        )
      return 0
    })
  },
}

const passwd: Command = {
  name: 'user passwd',
  summary: 'Cambia la contraseña de una cuenta',
  help: `
Uso: records user passwd <usuario> [--password-stdin]

Cambia la contraseña (pedida dos veces en la terminal sin mostrarla, o la primera línea de la
entrada estándar con --password-stdin). Queda en la auditoría como una edición.`,
  options: PASSWORD_OPTIONS,
  positionals: { min: 1, max: 1 },
  async run(input) {
    const password = await readNewPassword(input)
    return updateAccount(input, (accounts) => ({ [accounts.password]: password }), 'Contraseña cambiada')
  },
}

const toggle = (name: 'disable' | 'enable'): Command => ({
  name: `user ${name}`,
  summary:
    name === 'disable' ? 'Desactiva una cuenta: sus tokens dejan de valer (D20)' : 'Reactiva una cuenta desactivada',
  help: `
Uso: records user ${name} <usuario>

${name === 'disable' ? 'Desactiva la cuenta: no puede iniciar sesión y sus tokens vigentes dejan de autenticar (D20).' : 'Vuelve a activar la cuenta.'}`,
  options: {},
  positionals: { min: 1, max: 1 },
  async run(input) {
    return updateAccount(
      input,
      (accounts) => ({ [accounts.active]: name === 'enable' }),
      name === 'disable' ? 'Cuenta desactivada' : 'Cuenta activada',
    )
  },
})

const role: Command = {
  name: 'user role',
  summary: 'Cambia el rol de una cuenta',
  help: `
Uso: records user role <usuario> <rol>

Asigna uno de los roles de modules.yaml a la cuenta.`,
  options: {},
  positionals: { min: 2, max: 2 },
  async run(input) {
    return updateAccount(
      input,
      (accounts, env) => ({ [accounts.role]: knownRole(env, input.positionals[1]) }),
      `Rol cambiado a '${input.positionals[1] ?? ''}'`,
    )
  },
}

const rename: Command = {
  name: 'user rename',
  summary: 'Cambia el nombre de usuario de una cuenta',
  help: `
Uso: records user rename <usuario o id> <nuevo>

Da a la cuenta otro nombre de usuario, en su forma canónica (NFKC, sin caracteres invisibles ni
espacios alrededor, en minúsculas) y con solo letras latinas (a-z, á é í ó ú ü ñ à è ò ï ç),
cifras, '.', '_' y '-'. Sirve para resolver dos cuentas antiguas cuyos usuarios solo se
distinguen por mayúsculas, tildes, espacios o caracteres invisibles, que impiden arrancar el
servicio, y para renombrar las que el arranque avisa de que no cumplen la regla (otro alfabeto,
un espacio, una '@'): <usuario> se busca primero escrito exactamente así, después como id de
cuenta (USR-...). Sus sesiones siguen abiertas; queda en la auditoría como una edición.`,
  options: {},
  positionals: { min: 2, max: 2 },
  async run(input) {
    const [old = ''] = input.positionals
    return updateAccount(
      input,
      (accounts) => ({ [accounts.username]: input.positionals[1] }),
      (after, accounts) =>
        `Usuario cambiado: '${old}' ahora es '${String(after[accounts.username])}' (${String(after[META.id])})`,
    )
  },
}

export const commands = [add, list, passwd, toggle('disable'), toggle('enable'), role, rename, factorReset(accountId)]
