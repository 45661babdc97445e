// Which of the administration screens the signed-in role may use, from the API's own answers:
// a screen whose first request the API refuses (403) is not offered. No role name or permission
// list lives in the console (D46); the probes are the very reads the screens make. The audit
// trail is probed at `/auditoria`, modules.yaml's default `service.audit_path`.
import { ApiError, call } from './api.js'
import { explanationPath } from './definitions.js'
import type { ModuleView } from './module-view.js'

export interface Screens {
  readonly auditoria: boolean
  readonly retencion: boolean
  /** Module definitions with their explanation (D47), probed on the first module listed. */
  readonly definiciones: boolean
  /** The accounts module as GET /me/modulos gives it (the one with a `role` field), when listed. */
  readonly cuentas: ModuleView | undefined
}

const allowed = (path: string): Promise<boolean> =>
  call('GET', path).then(
    () => true,
    (error: unknown) => {
      if (error instanceof ApiError && error.status === 403) return false
      throw error
    },
  )

export async function screensOf(modules: readonly ModuleView[]): Promise<Screens> {
  const first = modules[0]?.nombre
  const [auditoria, retencion, definiciones] = await Promise.all([
    allowed('/auditoria?limit=1'),
    allowed('/retencion?limit=1'),
    first === undefined ? false : allowed(explanationPath(first)),
  ])
  return { auditoria, retencion, definiciones, cuentas: modules.find((m) => m.campos.some((c) => c.tipo === 'role')) }
}
