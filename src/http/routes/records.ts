// The five record operations of one module (API reference 4.4-4.8) and its history (D25): the
// handlers of the module's route contracts (contracts/records.ts), which declare the paths, the
// permissions checked before them, the body schemas they validate with and the serializers.
// Registered once per module with the module's path as prefix; handlers stay thin.
import type { Ajv } from 'ajv'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { parseFields, parseListQuery, type ListLimits, type QueryValue } from '../../records/list-query.js'
import { META } from '../../compile/metadata.js'
import type { ModuleSpec, RouteOperation, ServiceSpec } from '../../compile/types.js'
import type { ContractFamily } from '../../contracts/route-contract.js'
import type { ApiRecord, Expansion, RecordStore, RequestContext } from '../../db/records/types.js'
import { EXPAND_PARAMETER, parseExpand } from '../../records/expand-query.js'
import type { MotivoAction } from '../../config/types.js'
import { checkMotivo, requestContextOf } from '../motivo.js'
import { validationFailed, type ErrorDetail } from '../../errors.js'
import type { AccountRules } from '../../records/account-rules.js'
import type { SecondFactorStore } from '../../db/accounts/second-factors.js'
import { accountWriteHook, guardAccountWrite } from '../account-guard.js'
import { asksFactorReset } from '../account-factor-reset.js'
import { actingUser, holds, type AuthContext } from '../auth.js'
import { serveAuthenticated, validatingSchema } from '../contract-route.js'
import { createBodyValidator } from '../../records/body-validator.js'
import { etagOf, noneMatches, parseIfMatch } from '../if-match.js'

export interface RecordRoutesOptions {
  readonly contracts: ContractFamily<RouteOperation>
  readonly spec: ModuleSpec
  readonly service: ServiceSpec
  readonly store: RecordStore
  readonly ajv: Ajv
  readonly accountRules: AccountRules
  /** The accounts module's PUT may reset an account's second factors (D42). */
  readonly factors: SecondFactorStore
}

type IdRequest = FastifyRequest<{ Params: { id: string } }>

/** The action of `motivo_requerido:` each operation is. */
const MOTIVO_ACTION: Readonly<Record<RouteOperation, MotivoAction>> = {
  list: 'consultar',
  get: 'consultar',
  history: 'consultar',
  create: 'crear',
  update: 'editar',
  remove: 'eliminar',
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
  const { routes } = options.contracts
  const validator = createBodyValidator(spec, options.ajv, {
    create: validatingSchema(routes.create),
    update: validatingSchema(routes.update),
  })
  const limits: ListLimits = service.service.list
  const isAccounts = spec === service.accounts.spec
  /** The accounts module's own rule (D21, F8), decided by the store on the row its write locks. */
  const accountHook = (auth: AuthContext) =>
    isAccounts ? accountWriteHook(service, options.accountRules, auth) : undefined

  /** After the token (401) and the contract's permission (403): the motivo modules.yaml requires (400). */
  const allow = (
    request: FastifyRequest,
    auth: AuthContext,
    operation: RouteOperation,
  ): AuthContext & { readonly request: RequestContext } => {
    const context = requestContextOf(request)
    checkMotivo(spec, auth, MOTIVO_ACTION[operation], context)
    return { ...auth, request: context }
  }
  const reveal = (auth: AuthContext) => holds(auth, spec.permissions.descifrar)
  /** D41: may read a blocked record by id (with a motivo); the store decides. */
  const readBlocked = (auth: AuthContext) => holds(auth, spec.permissions.bloqueados)

  /**
   * `?expand=`: the named references replaced by their targets, read under the
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

  serveAuthenticated(app, routes.list, async (request, _reply, caller) => {
    const auth = allow(request, caller, 'list')
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
    return { success: true, data: { records, total: listed.total, limit: query.limit, offset: query.offset } }
  })

  serveAuthenticated(app, routes.get, async (request: IdRequest, reply, caller) => {
    const auth = allow(request, caller, 'get')
    const problems: ErrorDetail[] = []
    const fields = parseFields(spec, (request.query as Record<string, QueryValue>)['fields'], problems)
    if (problems.length > 0) throw validationFailed(problems)
    const expand = expansionsOf(request, auth)
    const read = {
      reveal: reveal(auth),
      readBlocked: readBlocked(auth),
      actor: auth.account.id,
      user: actingUser(auth),
      fields,
      request: auth.request,
    }
    // ?version=N: the record as it was; no ETag, it is not the one to change.
    const version = parseVersion((request.query as Record<string, unknown>)['version'])
    if (version !== undefined) {
      const [past] = await expanded(expand, auth, [await store.getVersion(spec, request.params.id, version, read)])
      return { success: true, data: past }
    }
    const [record] = await expanded(expand, auth, [await store.get(spec, request.params.id, read)])
    if (record === undefined) throw new Error('expand lost the record')
    const etag = etagOf(record[META.version])
    void reply.header('etag', etag)
    // D13: the caller's copy is current. Read and logged as any GET: the answer confirms the values.
    if (noneMatches(request.headers['if-none-match'], etag)) return reply.code(304).send()
    return { success: true, data: record }
  })

  serveAuthenticated(app, routes.history, async (request: IdRequest, _reply, caller) => {
    const auth = allow(request, caller, 'history')
    const read = {
      reveal: reveal(auth),
      readBlocked: readBlocked(auth),
      actor: auth.account.id,
      user: actingUser(auth),
      request: auth.request,
    }
    // F2: consultations and who asked are for the audit trail's holders only (history-visibility.ts).
    const auditor = holds(auth, service.audit.permission)
    return { success: true, data: { entries: await store.history(spec, request.params.id, { ...read, auditor }) } }
  })

  serveAuthenticated(app, routes.create, async (request, reply, caller) => {
    const auth = allow(request, caller, 'create')
    const values = validator.create(request.body)
    const record = await store.create(spec, values, {
      actor: auth.account.id,
      reveal: reveal(auth),
      user: actingUser(auth),
      hook: accountHook(auth),
    })
    void reply.code(201).header('etag', etagOf(record[META.version]))
    return { success: true, data: record }
  })

  /**
   * D42: the account's factors removed and its tokens ended, under the rules of an edit of it:
   * the caller's scope (404) and D21's role ceiling (403). The account itself is unchanged.
   */
  const resetFactors = async (request: IdRequest, auth: AuthContext & { readonly request: RequestContext }) => {
    const id = request.params.id
    const actor = auth.account.id
    const read = { reveal: reveal(auth), actor, user: actingUser(auth), request: auth.request }
    const record = await store.get(spec, id, read)
    // The role as stored, whatever field rules hide from the caller.
    const stored = await store.get(spec, id, { reveal: false, actor, user: null })
    guardAccountWrite(service, auth, { before: stored[service.accounts.role] })
    await options.factors.reset(id, { userId: actor, address: auth.request.address, requestId: auth.request.requestId })
    return record
  }

  serveAuthenticated(app, routes.update, async (request: IdRequest, reply, caller) => {
    const auth = allow(request, caller, 'update')
    if (isAccounts && asksFactorReset(spec, request.body)) {
      const record = await resetFactors(request, auth)
      void reply.header('etag', etagOf(record[META.version]))
      return { success: true, data: record }
    }
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
    void reply.header('etag', etagOf(record[META.version]))
    return { success: true, data: record }
  })

  serveAuthenticated(app, routes.remove, async (request: IdRequest, _reply, caller) => {
    const auth = allow(request, caller, 'remove')
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
