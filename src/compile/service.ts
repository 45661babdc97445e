// The whole configuration compiled: every module, every role, the accounts module.
import {
  ACTIONS,
  BLOCKED_ACTION,
  RETENTION_ACTIONS,
  RETENTION_NAMESPACE,
  SUBJECTS_NAMESPACE,
  type ModulesConfig,
} from '../config/types.js'
import { userFieldsOf } from './access.js'
import { compileModule } from './module.js'
import { compileRole, permissionName, type Namespace } from './permissions.js'
import type { ModuleSpec, ServiceSpec } from './types.js'

/** Pure: a validated ModulesConfig in, the ServiceSpec the engine serves out. */
export function compileService(config: ModulesConfig): ServiceSpec {
  const context = {
    roles: config.roles.map((r) => r.name),
    prefixes: new Map(config.modules.map((m) => [m.name, m.prefix])),
  }
  const modules = config.modules.map((m) => compileModule(m, context))
  const moduleByName = new Map(modules.map((m) => [m.name, m]))
  const auditPath = config.service.auditPath
  const namespaces: Namespace[] = [
    // Only a module that keeps records under `retention:` can block them (D41).
    ...modules.map((m) => ({
      name: m.name,
      actions: ACTIONS,
      ...(m.retention === undefined ? {} : { namedOnly: [BLOCKED_ACTION] }),
    })),
    { name: auditPath, actions: ['ver'] },
    { name: RETENTION_NAMESPACE, actions: RETENTION_ACTIONS },
    { name: SUBJECTS_NAMESPACE, actions: ['ver'] },
  ]
  const accountsModule = moduleByName.get(config.service.accounts.module) as ModuleSpec // checked by config rules
  return {
    service: config.service,
    modules,
    moduleByName,
    roles: new Map(config.roles.map((r) => [r.name, compileRole(r, namespaces)])),
    accounts: {
      ...config.service.accounts,
      spec: accountsModule,
      userFields: userFieldsOf(
        config.modules,
        accountsModule.fields.filter((f) => !f.writeOnly).map((f) => f.name),
      ),
    },
    audit: { path: auditPath, permission: permissionName(auditPath, 'ver') },
    retention: {
      path: RETENTION_NAMESPACE,
      permissions: {
        ver: permissionName(RETENTION_NAMESPACE, 'ver'),
        decidir: permissionName(RETENTION_NAMESPACE, 'decidir'),
      },
    },
    subjects: { path: SUBJECTS_NAMESPACE, permission: permissionName(SUBJECTS_NAMESPACE, 'ver') },
  }
}
