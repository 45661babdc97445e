// GET /me/modulos (D46): the caller's view of the modules, computed by records/module-view.ts.
import type { FastifyInstance } from 'fastify'
import type { ModuleSpec } from '../../compile/types.js'
import type { ContractFamily } from '../../contracts/route-contract.js'
import type { ModuleViewRoute } from '../../contracts/module-views.js'
import { moduleViews } from '../../records/module-view.js'
import { serveAuthenticated } from '../contract-route.js'

export interface ModuleViewRoutesOptions {
  readonly contracts: ContractFamily<ModuleViewRoute>
  readonly modules: readonly ModuleSpec[]
}

export async function moduleViewRoutes(app: FastifyInstance, options: ModuleViewRoutesOptions): Promise<void> {
  serveAuthenticated(app, options.contracts.routes.myModules, async (_request, _reply, auth) => ({
    success: true,
    data: moduleViews(options.modules, auth.role),
  }))
}
