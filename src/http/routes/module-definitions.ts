// GET /me/modulos/{modulo}/explicacion (D47; contracts/module-definitions.ts): a module's
// definitions, read-only. Thin: the lines are records/explain.ts's (the text `records explain`
// prints), the definition records/module-view.ts's; the account is read from the account store.
import type { FastifyInstance } from 'fastify'
import type { ServiceSpec } from '../../compile/types.js'
import type { ModuleDefinitionRoute } from '../../contracts/module-definitions.js'
import type { ContractFamily } from '../../contracts/route-contract.js'
import type { AccountStore } from '../../db/accounts/store.js'
import { recordNotFound, routeNotFound, validationFailed } from '../../errors.js'
import { explainModule } from '../../records/explain.js'
import { moduleViews } from '../../records/module-view.js'
import { serveAuthenticated } from '../contract-route.js'

export interface ModuleDefinitionRoutesOptions {
  readonly contracts: ContractFamily<ModuleDefinitionRoute>
  readonly service: ServiceSpec
  readonly accounts: AccountStore
}

interface ExplainRequest {
  Params: { modulo: string }
  Querystring: Record<string, string | string[] | undefined>
}

export async function moduleDefinitionRoutes(
  app: FastifyInstance,
  { contracts, service, accounts }: ModuleDefinitionRoutesOptions,
): Promise<void> {
  serveAuthenticated<ExplainRequest>(app, contracts.routes.explain, async (request, _reply, auth) => {
    const spec = service.moduleByName.get(request.params.modulo)
    if (spec === undefined) throw routeNotFound()
    const asked = request.query['usuario']
    if (Array.isArray(asked))
      throw validationFailed([{ field: 'usuario', message: "El parámetro 'usuario' aparece más de una vez" }])
    const account = asked === undefined ? auth.account : await accounts.activeAccount(asked)
    const role = account === undefined ? undefined : service.roles.get(account.role)
    // A deleted, disabled or unknown account, or one whose role modules.yaml no longer has.
    if (account === undefined || role === undefined) throw recordNotFound()
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
