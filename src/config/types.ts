// The validated, typed shape of modules.yaml (`*Def`: what the YAML says).

import { FIELD_DECLARATIONS, type FieldType } from './field-declarations.js'

export type { FieldType }
/** The types a field may have, in the order of the declarations. */
export const FIELD_TYPES = Object.keys(FIELD_DECLARATIONS) as readonly FieldType[]

export const ACTIONS = ['ver', 'crear', 'editar', 'eliminar', 'descifrar'] as const
export type Action = (typeof ACTIONS)[number]

export interface FieldDef {
  readonly name: string
  readonly type: FieldType
  readonly description?: string
  readonly required: boolean
  readonly unique: boolean
  readonly encrypted: boolean
  readonly index: boolean
  readonly state: boolean
  readonly enum?: readonly string[]
  readonly examples?: readonly string[]
  readonly default?: unknown
  readonly minimum?: number
  readonly maximum?: number
  readonly minLength?: number
  readonly maxLength?: number
  readonly pattern?: string
  readonly format?: 'email' | 'uri'
  readonly renamedFrom?: string
}

export interface ModuleDef {
  /** Path segment, table name and permission namespace (D2). */
  readonly name: string
  readonly prefix: string
  readonly description?: string
  readonly fields: readonly FieldDef[]
  /** Composite indexes: each lists two or more field names, in index order (issue #7). */
  readonly indexes: readonly (readonly string[])[]
}

export interface RoleDef {
  readonly name: string
  readonly description?: string
  readonly permissions: readonly string[]
}

export interface AccountsDef {
  readonly module: string
  readonly username: string
  readonly password: string
  readonly role: string
  readonly active: string
  readonly profile: readonly string[]
}

export interface ServiceDef {
  readonly timezone: string
  readonly tokenDays: number
  readonly auditPath: string
  readonly list: { readonly defaultLimit: number; readonly maxLimit: number; readonly maxFilters: number }
  readonly accounts: AccountsDef
}

export interface ModulesConfig {
  readonly service: ServiceDef
  readonly roles: readonly RoleDef[]
  readonly modules: readonly ModuleDef[]
}
