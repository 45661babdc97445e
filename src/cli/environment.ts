// What most subcommands work on: the engine the service opens (app/engine.ts: the settings, the
// compiled modules.yaml, the database migrated as the server would, the codec and the stores).
// No HTTP app is built: writes go through the same store, codec and audit chain as the API.
import type { KeyDestroyFailure } from '../db/retention/state.js'
import { userInfo } from 'node:os'
import type { ServiceSpec } from '../compile/types.js'
import { openEngine, type Engine } from '../app/engine.js'
import { loadSettings, type Settings } from '../app/settings.js'
import { type CommandInput } from './command.js'
import { messageOf } from './output.js'
import { commandFailed, readAuditUnwritten } from '../errors.js'
import type { ActingUser } from '../records/acting-user.js'

export interface Environment extends Engine {
  /** Who the audit chain names for writes made from the command line. */
  readonly actor: string
}

export interface OpenOptions {
  /** Apply the safe migration steps as the server does at startup (default true). */
  readonly migrate?: boolean
  /** Settings from another environment than the process's (tests, key rotation). */
  readonly env?: CommandInput['env']
  /** Seal pending audit entries at the open (default true); `records audit verify` reports them instead (D38). */
  readonly sealAudit?: boolean
}

export const cliActor = (): string => `cli:${userInfo().username}`

export function settingsOf(input: CommandInput): Settings {
  return loadSettings(input.env, input.cwd)
}

/**
 * Opens the engine and its tools; the caller closes it. A read-audit entry that cannot be
 * written is said on stderr when it happens; if some are still unwritten at the close, the
 * close fails: decrypted data was read without its trace in the audit trail (exit status 1).
 */
export async function openEnvironment(input: CommandInput, options: OpenOptions = {}): Promise<Environment> {
  const settings = loadSettings(options.env ?? input.env, input.cwd)
  const onReadAuditError = (error: unknown) =>
    void input.stderr.write(`records: no se pudo escribir la auditoría de lecturas: ${messageOf(error)}\n`)
  const migrate = options.migrate === false ? { migrate: false } : {}
  const seal = options.sealAudit === false ? { sealAudit: false } : {}
  const onSealError = (error: unknown) =>
    void input.stderr.write(
      `records: escritura guardada; su entrada de auditoría queda pendiente de sellar: ${messageOf(error)}\n`,
    )
  const onKeyDestroyFailure = (failure: KeyDestroyFailure) =>
    void input.stderr.write(
      `records: no se pudo destruir la clave de datos del registro suprimido ${failure.module}/${failure.recordId} (${messageOf(failure.error)}); la destruye el próximo arranque o ejecución de retención\n`,
    )
  const engine = await openEngine(settings, {
    ...migrate,
    ...seal,
    onReadAuditError,
    onSealError,
    onKeyDestroyFailure,
  })
  return {
    ...engine,
    actor: cliActor(),
    async close() {
      await engine.close()
      const lost = engine.unwrittenReads()
      if (lost > 0) throw readAuditUnwritten(lost)
    },
  }
}

/** Runs `work` on an open environment and closes it, whatever happens. */
export async function withEnvironment<T>(
  input: CommandInput,
  work: (env: Environment) => Promise<T>,
  options: OpenOptions = {},
): Promise<T> {
  const env = await openEnvironment(input, options)
  try {
    return await work(env)
  } finally {
    await env.close()
  }
}

/** The user a command acts as (`--as`): their role's scopes and field rules apply. */
export async function actingUserNamed(env: Environment, username: string): Promise<ActingUser> {
  const credentials = await env.accounts.credentials(username)
  const account = credentials === undefined ? undefined : await env.accounts.activeAccount(credentials.id)
  if (account === undefined) throw commandFailed(`No hay un usuario activo '${username}'`)
  return { id: account.id, role: account.role, fields: account.fields }
}

/** The module named on the command line, or a one-line reason listing the modules. */
export function moduleNamed(spec: ServiceSpec, name: string) {
  const module = spec.moduleByName.get(name)
  if (module === undefined)
    throw commandFailed(`Módulo desconocido '${name}'. Módulos: ${[...spec.moduleByName.keys()].join(', ')}`)
  return module
}
