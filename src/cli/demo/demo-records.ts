// `records demo`'s work: for every module of modules.yaml, targets of references first, records
// made of demo values and created through the store (ids, encryption, hashes, audit as any write),
// then moved along their workflow by allowed moves; the accounts module gets one account per role.
import type { ModuleSpec } from '../../compile/types.js'
import { commandFailed } from '../../errors.js'
import type { Row } from '../../db/database.js'
import { createBodyAjv, createBodyValidator } from '../../records/body-validator.js'
import { nextStates } from '../../records/workflow.js'
import type { Environment } from '../environment.js'
import type { DemoData } from './demo-data.js'
import { demoPassword, demoValue, type ValueContext } from './field-value.js'
import type { Random } from './seeded-random.js'

export interface DemoOptions {
  readonly env: Environment
  readonly data: DemoData
  readonly random: Random
  /** Records per module (the accounts module: one per role). */
  readonly count: number
}

export interface DemoAccount {
  readonly username: string
  readonly role: string
  readonly password: string
}

export interface DemoResult {
  readonly created: readonly { readonly module: string; readonly records: number }[]
  readonly accounts: readonly DemoAccount[]
}

const OPTIONAL_FILLED = 0.85
const MAX_MOVES = 3

/**
 * Why `records demo` must not run here, if it must not: a module holding a record (deleted ones
 * count) beyond the first account, or no first account yet (the demo creates no superadmin).
 */
export async function demoRefusal(env: Environment): Promise<string | undefined> {
  let accounts = 0
  for (const spec of env.spec.modules) {
    const row = await env.database.db
      .selectFrom(spec.table.name)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
    const n = Number(row.n)
    if (spec === env.spec.accounts.spec) accounts = n
    if (n > (spec === env.spec.accounts.spec ? 1 : 0))
      return `La base de datos ya tiene registros (en '${spec.name}'): records demo solo llena una base de datos vacía`
  }
  if (accounts === 0)
    return (
      'Aún no hay una primera cuenta: arranque el servicio una vez (npm start) o cree el primer ' +
      'superadministrador con records user add, y repita records demo'
    )
  return undefined
}

/** Modules with the targets of their references before them (a cycle keeps declaration order). */
export function creationOrder(modules: readonly ModuleSpec[]): ModuleSpec[] {
  const ordered: ModuleSpec[] = []
  const visiting = new Set<string>()
  const byName = new Map(modules.map((m) => [m.name, m]))
  const visit = (spec: ModuleSpec) => {
    if (ordered.includes(spec) || visiting.has(spec.name)) return
    visiting.add(spec.name)
    for (const ref of spec.references) {
      const target = byName.get(ref.module)
      if (target !== undefined && target !== spec) visit(target)
    }
    ordered.push(spec)
  }
  modules.forEach(visit)
  return ordered
}

export async function createDemoRecords(options: DemoOptions): Promise<DemoResult> {
  const { env, random } = options
  const ids = new Map<string, string[]>()
  const used = new Map<string, Set<string>>()
  const ajv = createBodyAjv()
  const created: { module: string; records: number }[] = []
  const accounts: DemoAccount[] = []
  const accountsSpec = env.spec.accounts.spec
  // Roles that hold every permission get no demo account: the first superadmin is enough.
  const roles = [...env.spec.roles.values()].filter((r) => !r.permissions.includes('*.*')).map((r) => r.name)
  const write = { actor: env.actor, reveal: false, user: null } as const

  for (const spec of creationOrder(env.spec.modules)) {
    const validator = createBodyValidator(spec, ajv)
    const isAccounts = spec === accountsSpec
    const total = isAccounts ? roles.length : options.count
    const mine: string[] = []
    ids.set(spec.name, mine)
    for (let i = 0; i < total; i += 1) {
      const context: ValueContext = {
        data: options.data,
        random,
        module: spec.name,
        n: i + 1,
        now: env.clock(),
        timezone: env.spec.service.timezone,
        roles: [...env.spec.roles.keys()],
        // An account takes a distinct target (its own staff record), others any live one.
        idsOf: (module) => {
          const live = ids.get(module) ?? []
          return isAccounts && live.length > 0 ? [live[i % live.length] as string] : live
        },
      }
      const body = recordBody(spec, context, used, isAccounts)
      if (isAccounts) {
        const account = accountOf(env, roles[i] as string)
        Object.assign(body, account.values)
        accounts.push(account.printed)
      }
      const values = isAccounts ? env.accountRules.check(validator.create(body)) : validator.create(body)
      const record = await env.store.create(spec, values, write)
      const id = String(record['_id'])
      mine.push(id)
      await walkWorkflow(options, spec, id, record, { ...context, idsOf: (m) => ids.get(m) ?? [] })
    }
    created.push({ module: spec.name, records: total })
  }
  return { created, accounts }
}

/**
 * Every field a value (optional ones most of the time, an account's all); the state one of the
 * creation states; a field some move requires is left for that move (no payment date on a draft).
 */
function recordBody(spec: ModuleSpec, context: ValueContext, used: Map<string, Set<string>>, all: boolean): Row {
  const body: Row = {}
  const workflow = spec.workflow
  const forMoves = new Set(
    [...(workflow?.moves.values() ?? [])].flatMap((tos) => [...tos.values()].flatMap((m) => m.requires)),
  )
  for (const field of spec.fields) {
    if (workflow !== undefined && field.name === workflow.field) {
      body[field.name] = context.random.pick(workflow.createIn)
      continue
    }
    if (!field.def.required && (forMoves.has(field.name) || (!all && !context.random.chance(OPTIONAL_FILLED)))) continue
    let value = demoValue(field, context)
    if (field.def.unique && value !== undefined) {
      const key = `${spec.name}.${field.name}`
      const seen = used.get(key) ?? new Set<string>()
      used.set(key, seen)
      for (let tries = 0; seen.has(JSON.stringify(value)) && tries < 50; tries += 1) value = demoValue(field, context)
      seen.add(JSON.stringify(value))
    }
    if (value !== undefined) body[field.name] = value
  }
  return body
}

/** A demo account of `role`: its username, a random password and the role (accounts of modules.yaml). */
function accountOf(env: Environment, role: string): { values: Row; printed: DemoAccount } {
  const accounts = env.spec.accounts
  const password = demoPassword()
  const username = `demo.${role}`.toLowerCase().replace(/[^a-z0-9._-]/g, '')
  const values: Row = { [accounts.username]: username, [accounts.password]: password, [accounts.role]: role }
  if (accounts.active !== undefined) values[accounts.active] = true
  return { values, printed: { username, role, password } }
}

/** Up to three allowed moves from the creation state, each with the fields the move requires. */
async function walkWorkflow(
  options: DemoOptions,
  spec: ModuleSpec,
  id: string,
  record: Readonly<Record<string, unknown>>,
  context: ValueContext,
): Promise<void> {
  const workflow = spec.workflow
  if (workflow === undefined) return
  const validator = createBodyValidator(spec, createBodyAjv())
  let state = record[workflow.field]
  const known: Record<string, unknown> = { ...record }
  for (let step = options.random.int(0, MAX_MOVES); step > 0 && typeof state === 'string'; step -= 1) {
    const next = nextStates(workflow, state, null)
    if (next.length === 0) return
    const to = options.random.pick(next)
    const changes: Row = { [workflow.field]: to }
    for (const name of workflow.moves.get(state)?.get(to)?.requires ?? []) {
      const field = spec.fieldsByName.get(name)
      if (field === undefined || (known[name] !== undefined && known[name] !== null)) continue
      const value = demoValue(field, context)
      if (value === undefined) throw commandFailed(`No hay valor de demostración para '${spec.name}.${name}'`)
      changes[name] = value
    }
    await options.env.store.update(spec, id, validator.update(changes), {
      actor: options.env.actor,
      reveal: false,
      user: null,
    })
    Object.assign(known, changes)
    state = to
  }
}
