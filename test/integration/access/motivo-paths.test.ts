// F3 (D29): the motivo rule had back doors. For every module whose reads modules.yaml makes some
// role justify (`motivo_requerido: consultar`), every path that reveals its records is walked as
// each such role: by id, a past version, the history, lists with their totals, filters and text
// search, an `?expand=` from every module that references it, and the live feed (by bearer token
// and by ticket). Without `X-Motivo` each answers 400 (or, where the role may not read the
// module at all, leaves the record out); with it, each consultation entry carries the address,
// the request id and the motivo.
import t from 'tap'
import type { ModuleSpec } from '../../../src/compile/types.js'
import { MESSAGES } from '../../../src/errors.js'
import { VALID, type Reply, type TestApi } from '../../helpers/api.js'
import { listening } from '../live/support.js'
import { auditRows, eventually } from '../protection/support.js'

const MOTIVO = 'Expediente disciplinario 3/2026'
const withMotivo = { 'x-motivo': encodeURIComponent(MOTIVO) }

interface Walk {
  /** The module whose records the path reveals. */
  readonly module: ModuleSpec
  readonly path: string
  /** The permission the path needs on `module`; without it the record must stay out of the answer. */
  readonly through?: ModuleSpec
  readonly field?: string
}

/** A value of a plain text field of `record`, to filter a list by it. */
function plainFilter(spec: ModuleSpec, record: Record<string, unknown>): string | undefined {
  const field = spec.fields.find((f) => f.def.type === 'string' && !f.encrypted && typeof record[f.name] === 'string')
  return field === undefined ? undefined : `${field.name}=${encodeURIComponent(String(record[field.name]))}`
}

/** Every reading path that reveals `target` of `spec`, creating the records that reference it. */
async function walks(api: TestApi, spec: ModuleSpec, target: Record<string, unknown>): Promise<Walk[]> {
  const id = String(target['_id'])
  const out: Walk[] = [
    { module: spec, path: `/${spec.name}/${id}` },
    { module: spec, path: `/${spec.name}/${id}?version=1` },
    { module: spec, path: `/${spec.name}/${id}/historial` },
    { module: spec, path: `/${spec.name}` },
    { module: spec, path: `/${spec.name}?limit=1&offset=0` },
  ]
  const filter = plainFilter(spec, target)
  if (filter !== undefined) out.push({ module: spec, path: `/${spec.name}?${filter}` })
  const searchable = spec.fields.find((f) => f.def.searchable === true)
  if (searchable !== undefined) out.push({ module: spec, path: `/${spec.name}?q=palabra` })
  for (const from of api.service.spec.modules)
    for (const ref of from.references.filter((r) => r.module === spec.name)) {
      if (VALID[from.name] === undefined) continue // the accounts module: not readable by these roles
      const referrer = await api.create(from.name, { ...VALID[from.name]!(), [ref.field]: id })
      out.push({
        module: spec,
        through: from,
        field: ref.field,
        path: `/${from.name}/${referrer._id}?expand=${ref.field}`,
      })
      out.push({
        module: spec,
        through: from,
        field: ref.field,
        path: `/${from.name}?expand=${ref.field}&limit=1000`,
      })
    }
  return out
}

/** The consultation entry of module `module` that request `reply` left. */
async function consultationOf(
  api: TestApi,
  reply: Reply,
  module: string,
): Promise<Record<string, unknown> | undefined> {
  const requestId = String(reply.headers['x-request-id'])
  const rows = await eventually(
    () => auditRows(api),
    (all) => all.some((r) => r['request_id'] === requestId && r['module'] === module),
  )
  return rows.find((r) => r['action'] === 'consultar' && r['request_id'] === requestId && r['module'] === module)
}

/** The account's ref fields into `spec`, each set to `target`. */
const accountFieldsNaming = (api: TestApi, spec: ModuleSpec, target: Record<string, unknown>) =>
  Object.fromEntries(
    api.service.spec.accounts.spec.references
      .filter((r) => r.module === spec.name)
      .map((r) => [r.field, target['_id']]),
  )

const guardedModules = (api: TestApi) =>
  api.service.spec.modules.filter((m) => (m.def.motivoRequired?.consultar ?? []).length > 0)

t.test('F3: every path that reveals a module asks its motivo rule and logs who, from where and why', async (t) => {
  const { api } = await listening(t)
  t.ok(guardedModules(api).length > 0, 'the shipped modules.yaml has such a module')
  for (const spec of guardedModules(api)) {
    const target = await api.create(spec.name, VALID[spec.name]!())
    const paths = await walks(api, spec, target)
    for (const role of spec.def.motivoRequired?.consultar ?? []) {
      const granted = api.service.spec.roles.get(role)!.granted
      // An account field naming the target (personal_id): scopes that compare it put the
      // referencing records in this user's view.
      const user = await api.userWithRole(role, accountFieldsNaming(api, spec, target))
      for (const walk of paths) {
        if (walk.through !== undefined && !granted.has(walk.through.permissions.ver)) continue
        const label = `${role} ${walk.path}`
        const refused = await api.request('GET', walk.path, { token: user.token })
        if (!granted.has(spec.permissions.ver)) {
          // May not read the module: a direct path is 403, an expansion leaves the id.
          if (walk.through === undefined) t.equal(refused.status, 403, `${label}: no ${spec.permissions.ver}`)
          else {
            t.equal(refused.status, 200, `${label}: the referencing record is readable`)
            t.notOk(JSON.stringify(refused.body).includes(`"${walk.field}":{`), `${label}: nothing embedded`)
          }
          continue
        }
        t.equal(refused.status, 400, `${label} without X-Motivo`)
        t.equal(refused.body.error, MESSAGES.motivoRequired, label)
        t.match(refused.body.details, [
          { field: 'X-Motivo', message: new RegExp(`${role}.*consultar.*'${spec.name}'`) },
        ])

        const given = await api.request('GET', walk.path, { token: user.token, headers: withMotivo })
        t.equal(given.status, 200, `${label} with X-Motivo`)
        if (walk.through !== undefined)
          t.ok(JSON.stringify(given.body).includes(`"${walk.field}":{`), `${label}: the target embedded`)
        t.match(
          await consultationOf(api, given, spec.name),
          { user_id: user.id, address: '127.0.0.1', request_id: given.headers['x-request-id'], motivo: MOTIVO },
          `${label}: the consultation names who, from where and why`,
        )
      }
    }
  }
})

t.test('F3: the live feed asks the motivo at subscription and names it in every consultation', async (t) => {
  const { api, feed } = await listening(t)
  for (const spec of guardedModules(api)) {
    const target = await api.create(spec.name, VALID[spec.name]!())
    const admin = await api.adminToken()
    for (const role of spec.def.motivoRequired?.consultar ?? []) {
      const user = await api.userWithRole(role)
      const ticket = async (headers: Record<string, string> = {}) => {
        const reply = await api.request('POST', '/eventos/ticket', { token: user.token, headers })
        t.equal(reply.status, 201)
        return String(reply.body.data.ticket)
      }
      if (!api.service.spec.roles.get(role)!.granted.has(spec.permissions.ver)) {
        t.equal((await feed(`?modulos=${spec.name}`, user.token)).status, 403, `${role}: no ${spec.permissions.ver}`)
        continue
      }
      // Named without a motivo: refused, by token and by a ticket asked without one.
      for (const refused of [
        await feed(`?modulos=${spec.name}`, user.token),
        await feed(`?modulos=${spec.name}&ticket=${await ticket()}`, undefined),
      ]) {
        t.equal(refused.status, 400, `${role}: a feed of ${spec.name} without X-Motivo`)
        t.equal(refused.body.error, MESSAGES.motivoRequired)
      }
      // All modules, no motivo: the guarded module is left out of the feed.
      const all = await feed('', user.token)
      t.equal(all.status, 200)

      // With the motivo: by bearer token and X-Motivo, and by a ticket asked with X-Motivo.
      const byToken = await feed(`?modulos=${spec.name}`, user.token, withMotivo)
      const byTicket = await feed(`?modulos=${spec.name}&ticket=${await ticket(withMotivo)}`, undefined)
      for (const stream of [byToken, byTicket]) t.equal(stream.status, 200, `${role}: a feed of ${spec.name}`)
      const edited = await api.request('PUT', `/${spec.name}/${target._id}`, {
        token: admin,
        body: { [plainFilter(spec, target)!.split('=')[0]!]: `cambio ${role}` },
      })
      t.equal(edited.status, 200)
      for (const stream of [byToken, byTicket]) {
        const event = await stream.next('editar')
        t.equal(event.data.id, target._id, `${role}: the change is streamed`)
        const requestId = stream.headers.get('x-request-id')
        t.ok(requestId, 'the stream answers with its request id')
        const rows = await eventually(
          () => auditRows(api),
          (r) => r.some((e) => e['request_id'] === requestId && e['module'] === spec.name),
        )
        t.match(
          rows.find((e) => e['request_id'] === requestId && e['module'] === spec.name),
          { action: 'consultar', user_id: user.id, record_id: target._id, address: '127.0.0.1', motivo: MOTIVO },
          `${role}: the feed's consultation names who, from where and why`,
        )
      }
      // The feed of every module, opened without a motivo, never showed the guarded module.
      const other = await api.create('vehiculos', VALID['vehiculos']!())
      if (api.service.spec.roles.get(role)!.granted.has('vehiculos.ver'))
        t.equal((await all.next('crear')).data.id, other._id, `${role}: the unguarded modules still stream`)
      t.notOk(
        all.events.some((e) => e.data?.modulo === spec.name),
        `${role}: nothing of ${spec.name} on a feed without a motivo`,
      )
    }
  }
})

t.test('F3: a feed opened without a motivo ends when the role becomes one that must give it', async (t) => {
  const { api, feed } = await listening(t)
  const jefe = await api.userWithRole('jefe')
  const stream = await feed('?modulos=personal', jefe.token)
  t.equal(stream.status, 200, 'jefe needs no motivo to follow personal')
  const put = await api.request('PUT', `/usuarios/${jefe.id}`, {
    token: await api.adminToken(),
    body: { rol: 'consulta' },
  })
  t.equal(put.status, 200)
  await api.create('personal', VALID['personal']!())
  const closing = await stream.next()
  t.equal(closing.event, 'cerrado')
  t.equal(closing.data.mensaje, "El rol 'consulta' debe indicar el motivo para consultar 'personal'")
  t.notOk(
    stream.events.some((e) => e.data?.modulo === 'personal'),
    'no record shown to the new role',
  )
  await stream.ended
})
