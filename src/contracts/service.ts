// Every endpoint family of the service, in the order the OpenAPI document lists them.
import type { ServiceSpec } from '../compile/types.js'
import { auditContracts } from './audit.js'
import { eventContracts } from './events.js'
import { fileContracts } from './files.js'
import { recordContracts } from './records.js'
import { retentionContracts } from './retention.js'
import { subjectContracts } from './subjects.js'
import { passkeyContracts } from './passkey.js'
import type { ContractFamily } from './route-contract.js'
import { secondFactorContracts } from './second-factor.js'
import { sessionContracts } from './session.js'
import { moduleViewContracts } from './module-views.js'
import { moduleDefinitionContracts } from './module-definitions.js'
import { systemContracts } from './system.js'

/**
 * The families of a compiled service: session, second factor (D42), audit trail, retention and
 * interesados (D41), live feed, D3's endpoints, then each module.
 */
export function serviceContracts(service: ServiceSpec): readonly ContractFamily[] {
  return [
    sessionContracts(service),
    moduleViewContracts,
    moduleDefinitionContracts(service),
    secondFactorContracts,
    passkeyContracts(service),
    auditContracts(service),
    retentionContracts(service),
    subjectContracts(service),
    eventContracts(service),
    systemContracts,
    ...service.modules.flatMap((spec) => {
      const files = fileContracts(spec)
      return files === undefined ? [recordContracts(spec, service)] : [recordContracts(spec, service), files]
    }),
  ]
}
