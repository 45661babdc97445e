// GET /me/modulos/{modulo}/explicacion (D47; contracts/module-definitions.ts): a module's
// definitions, read-only. Thin: the lines are records/explain.ts's (the text `records explain`
// prints), the definition records/module-view.ts's. Another person's account is read as
// `GET /usuarios/{id}` reads it, through the record store with the caller's rules (scope,
// blocking, motivo, field rules, the consultation log), before its role and attributes are told.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { MASK } from '../../compile/metadata.js'
import type { ServiceSpec } from '../../compile/types.js'
import type { ModuleDefinitionRoute } from '../../contracts/module-definitions.js'
import type { ContractFamily } from '../../contracts/route-contract.js'
import type { AccountStore } from '../../db/accounts/store.js'
import type { RecordStore } from '../../db/records/types.js'
import { missingPermission, recordNotFound, routeNotFound, validationFailed } from '../../errors.js'
import { explainModule } from '../../records/explain.js'
import { moduleViews } from '../../records/module-view.js'
import { actingUser, holds, type AuthContext } from '../auth.js'
import { serveAuthenticated } from '../contract-route.js'
import { checkMotivo, requestContextOf } from '../motivo.js'

export interface ModuleDefinitionRoutesOptions {
  readonly contracts: ContractFamily<ModuleDefinitionRoute>
  readonly service: ServiceSpec
  readonly accounts: AccountStore
  readonly store: RecordStore
}

interface ExplainRequest {
  Params: { modulo: string }
  Querystring: Record<string, string | string[] | undefined>
}

export async function moduleDefinitionRoutes(
  app: FastifyInstance,
  { contracts, service, accounts, store }: ModuleDefinitionRoutesOptions,
): Promise<void> {
  const accountsSpec = service.accounts.spec

  /**
   * The account `id` as the caller may read it: 404 out of its scope, 403 blocked, 400 without a
   * required motivo, a logged consultation; attributes the caller may not read come back masked.
   */
  async function readAccount(request: FastifyRequest, auth: AuthContext, id: string) {
    const context = requestContextOf(request)
    checkMotivo(accountsSpec, auth, 'consultar', context)
    const visible = await store.get(accountsSpec, id, {
      reveal: holds(auth, accountsSpec.permissions.descifrar),
      readBlocked: holds(auth, accountsSpec.permissions.bloqueados),
      actor: auth.account.id,
      user: actingUser(auth),
      request: context,
    })
    const account = await accounts.activeAccount(id)
    if (account === undefined) throw recordNotFound()
    const fields = Object.fromEntries(
      Object.entries(account.fields).map(([name, value]) => [
        name,
        visible[name] === undefined || visible[name] === MASK ? MASK : value,
      ]),
    )
    return { ...account, fields }
  }

  serveAuthenticated<ExplainRequest>(app, contracts.routes.explain, async (request, _reply, auth) => {
    const spec = service.moduleByName.get(request.params.modulo)
    if (spec === undefined) throw routeNotFound()
    // The definition as the caller may see it, never more: a module it may not list is refused.
    if (!holds(auth, spec.permissions.ver)) throw missingPermission(spec.permissions.ver, auth.role.name)
    const asked = request.query['usuario']
    if (Array.isArray(asked))
      throw validationFailed([{ field: 'usuario', message: "El parámetro 'usuario' aparece más de una vez" }])
    const account =
      asked === undefined || asked === auth.account.id ? auth.account : await readAccount(request, auth, asked)
    const role = service.roles.get(account.role)
    // An account whose role modules.yaml no longer has.
    if (role === undefined) throw recordNotFound()
    const user = { id: account.id, role: account.role, fields: account.fields }
    return {
      success: true,
      data: {
        modulo: spec.name,
        usuario: account.id,
        explicacion: explainModule(spec, role, user),
        definicion: moduleViews([spec], auth.role)[0] ?? null,
      },
    }
  })
}
