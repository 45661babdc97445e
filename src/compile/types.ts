// Compiled output (`*Spec`): what the engine serves, derived purely from modules.yaml.
import type { AccountsDef, Action, FieldDef, ModuleDef, ServiceDef } from '../config/types.js'
import type { FilterParser, JsonSchema, StorageKind } from './field-types.js'

export interface FieldSpec {
  readonly def: FieldDef
  readonly name: string
  /** Column name; SQL identifiers come only from the validated configuration. */
  readonly column: string
  readonly storage: StorageKind
  readonly encrypted: boolean
  /** Keyed HMAC column for exact-match search of an encrypted field (D16). */
  readonly blindIndexColumn: string | undefined
  /** Accepted on write, never returned (passwords). */
  readonly writeOnly: boolean
  readonly parseFilter: FilterParser | null
  readonly sortable: boolean
  readonly valueSchema: JsonSchema
  readonly label: string
}

export interface ColumnSpec {
  readonly name: string
  readonly storage: StorageKind
  readonly nullable: boolean
  readonly autoIncrement?: boolean
}

export interface IndexSpec {
  readonly name: string
  readonly columns: readonly string[]
  readonly unique: boolean
  /** Partial index over live (not soft-deleted) rows. */
  readonly liveOnly: boolean
  /** The field a unique violation of this index is reported on (D12). */
  readonly field?: string
}

export interface TableSpec {
  readonly name: string
  readonly columns: readonly ColumnSpec[]
  readonly indexes: readonly IndexSpec[]
}

export interface ModuleSchemas {
  readonly create: JsonSchema
  readonly update: JsonSchema
  readonly record: JsonSchema
  /**
   * What the success responses are serialized by (fast-json-stringify through Fastify,
   * issue #7): the record's shape with plain types only. Encrypted, array and mixed values
   * are left untyped (written as JSON.stringify would) so masking never meets a type.
   */
  readonly responses: { readonly one: JsonSchema; readonly list: JsonSchema }
}

export type RouteOperation = 'list' | 'get' | 'create' | 'update' | 'remove' | 'history'

export interface RouteSpec {
  readonly operation: RouteOperation
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE'
  /** Relative to the module prefix, Fastify syntax. */
  readonly url: string
  readonly permission: string
}

export interface DefaultSpec {
  readonly field: string
  /** A literal value, or 'now' for the current time in the field's format. */
  readonly value: { readonly literal: unknown } | { readonly now: 'date' | 'datetime' }
}

export interface ModuleSpec {
  readonly def: ModuleDef
  readonly name: string
  readonly prefix: string
  readonly fields: readonly FieldSpec[]
  readonly fieldsByName: ReadonlyMap<string, FieldSpec>
  /** The fields encrypted at rest (D14), in declaration order. */
  readonly encryptedFields: readonly FieldSpec[]
  readonly requiredFields: readonly string[]
  readonly stateField: string | undefined
  readonly defaults: readonly DefaultSpec[]
  readonly table: TableSpec
  readonly schemas: ModuleSchemas
  readonly permissions: Readonly<Record<Action, string>>
  readonly routes: readonly RouteSpec[]
}

export interface RoleSpec {
  readonly name: string
  readonly description: string | undefined
  /** As written, wildcards included: what `covers` compares. */
  readonly permissions: readonly string[]
  /** Every concrete `{module}.{action}` the role holds, wildcards expanded. */
  readonly granted: ReadonlySet<string>
}

export interface AccountsSpec extends AccountsDef {
  readonly spec: ModuleSpec
}

export interface ServiceSpec {
  readonly service: ServiceDef
  readonly modules: readonly ModuleSpec[]
  readonly moduleByName: ReadonlyMap<string, ModuleSpec>
  readonly roles: ReadonlyMap<string, RoleSpec>
  readonly accounts: AccountsSpec
  readonly audit: { readonly path: string; readonly permission: string }
}
