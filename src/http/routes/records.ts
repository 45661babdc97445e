// The five record operations of one module (API reference 4.4-4.8) and its history (D25).
// Registered once per module with the module's path as prefix; handlers stay thin.
import type { Ajv } from 'ajv'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { parseFields, parseListQuery, type ListLimits, type QueryValue } from '../../records/list-query.js'
import type { JsonSchema } from '../../compile/field-types.js'
import { META } from '../../compile/metadata.js'
import type { ModuleSpec, RouteSpec, ServiceSpec } from '../../compile/types.js'
import type { ApiRecord, Expansion, RecordStore, RequestContext } from '../../db/records/types.js'
import { EXPAND_PARAMETER, parseExpand } from '../../records/expand-query.js'
import type { MotivoAction } from '../../config/types.js'
import { checkMotivo, requestContextOf } from '../motivo.js'
import { validationFailed, type ErrorDetail } from '../../errors.js'
import type { AccountRules } from '../../records/account-rules.js'
import { accountWriteHook } from '../account-guard.js'
import { actingUser, holds, requirePermission, type AuthContext } from '../auth.js'
import { createBodyValidator } from '../../records/body-validator.js'
import { etagOf, noneMatches, parseIfMatch } from '../if-match.js'

export interface RecordRoutesOptions {
  readonly spec: ModuleSpec
  readonly service: ServiceSpec
  readonly store: RecordStore
  readonly ajv: Ajv
  readonly accountRules: AccountRules
}

type IdRequest = FastifyRequest<{ Params: { id: string } }>

/** The action of `motivo_requerido:` each operation is (issue #15). */
const MOTIVO_ACTION: Readonly<Record<RouteSpec['operation'], MotivoAction>> = {
  list: 'consultar',
  get: 'consultar',
  history: 'consultar',
  create: 'crear',
  update: 'editar',
  remove: 'eliminar',
}

/**
 * Success bodies through the module's compiled serializer (fast-json-stringify, compiled by
 * Fastify on first use and cached per route). Set only once the result is in hand: an error
 * thrown before goes out through the error handler's envelope untouched.
 */
function serializeWith(reply: FastifyReply, schema: JsonSchema): void {
  // Fastify sets the JSON content type itself only for its default serializer.
  void reply.serializer(reply.compileSerializationSchema(schema)).type('application/json; charset=utf-8')
}

/** `?version=`: a positive integer, else 400; absent: undefined. */
function parseVersion(value: unknown): number | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'string' || !/^[1-9][0-9]{0,8}$/.test(value))
    throw validationFailed([{ field: 'version', message: "'version' debe ser un número entero positivo" }])
  return Number(value)
}

export async function recordRoutes(app: FastifyInstance, options: RecordRoutesOptions): Promise<void> {
  const { spec, service, store } = options
  const validator = createBodyValidator(spec, options.ajv)
  const limits: ListLimits = service.service.list
  const isAccounts = spec === service.accounts.spec
  /** The accounts module's own rule (D21, F8), decided by the store on the row its write locks. */
  const accountHook = (auth: AuthContext) =>
    isAccounts ? accountWriteHook(service, options.accountRules, auth) : undefined
  const route = (operation: RouteSpec['operation']) => spec.routes.find((r) => r.operation === operation) as RouteSpec

  /** Authenticates and checks the permission: 401, then 403; then the motivo modules.yaml requires (400). */
  const allow = async (
    request: FastifyRequest,
    operation: RouteSpec['operation'],
  ): Promise<AuthContext & { readonly request: RequestContext }> => {
    const auth = await app.authenticate(request)
    requirePermission(auth, route(operation).permission)
    const context = requestContextOf(request)
    checkMotivo(spec, auth, MOTIVO_ACTION[operation], context)
    return { ...auth, request: context }
  }
  const reveal = (auth: AuthContext) => holds(auth, spec.permissions.descifrar)

  /**
   * `?expand=` (issue #16): the named references replaced by their targets, read under the
   * caller's permissions on the target module; without its `ver`, a reference stays an id. An
   * embedded record is revealed like a GET of it: its module's motivo rule applies (400 naming
   * that module, before anything is read) and its consultation names this request (F3).
   */
  const expansionsOf = (request: FastifyRequest, auth: AuthContext & { readonly request: RequestContext }) =>
    parseExpand(spec, (request.query as Record<string, string | string[]>)[EXPAND_PARAMETER]).flatMap(
      (field): Expansion[] => {
        const target = service.moduleByName.get(spec.references.find((r) => r.field === field)?.module ?? '')
        if (target === undefined || !holds(auth, target.permissions.ver)) return []
        checkMotivo(target, auth, 'consultar', auth.request)
        return [{ field, reveal: holds(auth, target.permissions.descifrar) }]
      },
    )
  const expanded = async (
    expansions: readonly Expansion[],
    auth: AuthContext & { readonly request: RequestContext },
    records: ApiRecord[],
  ): Promise<ApiRecord[]> => {
    if (expansions.length === 0) return records
    return store.expand(spec, records, expansions, {
      actor: auth.account.id,
      user: actingUser(auth),
      request: auth.request,
    })
  }

  app.get('/', async (request, reply) => {
    const auth = await allow(request, 'list')
    const query = parseListQuery(spec, request.query as Record<string, string | string[]>, limits)
    const expand = expansionsOf(request, auth)
    // The store refuses what this reader may not ask (D16, D27) before it reads anything.
    const listed = await store.list(spec, query, {
      reveal: reveal(auth),
      actor: auth.account.id,
      user: actingUser(auth),
      fields: query.fields,
      request: auth.request,
    })
    const records = await expanded(expand, auth, listed.records)
    serializeWith(reply, spec.schemas.responses.list)
    return { success: true, data: { records, total: listed.total, limit: query.limit, offset: query.offset } }
  })

  app.get('/:id', async (request: IdRequest, reply) => {
    const auth = await allow(request, 'get')
    const problems: ErrorDetail[] = []
    const fields = parseFields(spec, (request.query as Record<string, QueryValue>)['fields'], problems)
    if (problems.length > 0) throw validationFailed(problems)
    const expand = expansionsOf(request, auth)
    const read = { reveal: reveal(auth), actor: auth.account.id, user: actingUser(auth), fields, request: auth.request }
    // ?version=N: the record as it was (issue #15 item 6); no ETag, it is not the one to change.
    const version = parseVersion((request.query as Record<string, unknown>)['version'])
    if (version !== undefined) {
      const [past] = await expanded(expand, auth, [await store.getVersion(spec, request.params.id, version, read)])
      serializeWith(reply, spec.schemas.responses.one)
      return { success: true, data: past }
    }
    const [record] = await expanded(expand, auth, [await store.get(spec, request.params.id, read)])
    if (record === undefined) throw new Error('expand lost the record')
    serializeWith(reply, spec.schemas.responses.one)
    const etag = etagOf(record[META.version])
    void reply.header('etag', etag)
    // D13: the caller's copy is current. Read and logged as any GET: the answer confirms the values.
    if (noneMatches(request.headers['if-none-match'], etag)) return reply.code(304).send()
    return { success: true, data: record }
  })

  app.get('/:id/historial', async (request: IdRequest) => {
    const auth = await allow(request, 'history')
    const read = { reveal: reveal(auth), actor: auth.account.id, user: actingUser(auth), request: auth.request }
    // F2: consultations and who asked are for the audit trail's holders only (history-visibility.ts).
    const auditor = holds(auth, service.audit.permission)
    return { success: true, data: { entries: await store.history(spec, request.params.id, { ...read, auditor }) } }
  })

  app.post('/', async (request, reply) => {
    const auth = await allow(request, 'create')
    const values = validator.create(request.body)
    const record = await store.create(spec, values, {
      actor: auth.account.id,
      reveal: reveal(auth),
      user: actingUser(auth),
      hook: accountHook(auth),
    })
    serializeWith(reply, spec.schemas.responses.one)
    void reply.code(201).header('etag', etagOf(record[META.version]))
    return { success: true, data: record }
  })

  app.put('/:id', async (request: IdRequest, reply) => {
    const auth = await allow(request, 'update')
    const ifMatch = parseIfMatch(request.headers['if-match'])
    const changes = validator.update(request.body)
    const record = await store.update(spec, request.params.id, changes, {
      actor: auth.account.id,
      reveal: reveal(auth),
      ifMatch,
      user: actingUser(auth),
      request: auth.request,
      hook: accountHook(auth),
    })
    serializeWith(reply, spec.schemas.responses.one)
    void reply.header('etag', etagOf(record[META.version]))
    return { success: true, data: record }
  })

  app.delete('/:id', async (request: IdRequest) => {
    const auth = await allow(request, 'remove')
    const ifMatch = parseIfMatch(request.headers['if-match'])
    await store.remove(spec, request.params.id, {
      actor: auth.account.id,
      reveal: false,
      ifMatch,
      user: actingUser(auth),
      hook: accountHook(auth),
    })
    return { success: true, data: { message: 'Registro eliminado' } }
  })
}
