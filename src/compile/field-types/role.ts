// `role`: the name of one of modules.yaml's roles (the accounts module's role field).
import type { FieldTypeDef } from './field-type.js'
import { anyString, BASE_DECLARATION, textCell } from './shared.js'

export const roleType: FieldTypeDef = {
  declaration: { ...BASE_DECLARATION, encryptable: false },
  storage: 'text',
  label: 'nombre de rol',
  valueSchema: (_f, context) => ({ type: 'string', enum: context.roles }),
  parseFilter: anyString,
  // Names of roles have no meaningful order: equality, a list of them, emptiness.
  operators: ['eq', 'ne', 'in', 'null'],
  sortable: true,
  textual: true,
  cell: textCell,
  demo: (_, { roles, random }) => random.pick(roles),
  textExamples: true,
  // The least privileged role is the safest example (roles run from most to least).
  example: (f) => (f.valueSchema['enum'] as readonly string[] | undefined)?.at(-1),
}
