// Compiled output (`*Spec`): what the engine serves, derived purely from modules.yaml.
import type {
  AccountsDef,
  ModuleAction,
  FieldDef,
  ModuleDef,
  OnExpiry,
  RetentionAction,
  ServiceDef,
} from '../config/types.js'
import type { Duration } from '../config/duration.js'
import type { FilterOperator, FilterParser, JsonSchema, StorageKind } from './field-types/vocabulary.js'

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
  /** D43: written only by uploads to its route, never by a record's body (`file`). */
  readonly uploaded?: true
  readonly parseFilter: FilterParser | null
  /** The filter operators this field allows: its type's, only ENCRYPTED_OPERATORS when encrypted. */
  readonly operators: readonly FilterOperator[]
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
  /**
   * D40: also `_id <> ''` in its WHERE (true of every record), which only the queries of every
   * live record state (records/query.ts `everyLiveRow`): no filtered query can choose it.
   */
  readonly everyLiveRow?: true
  /** The field a unique violation of this index is reported on (D12). */
  readonly field?: string
}

export interface TableSpec {
  readonly name: string
  readonly columns: readonly ColumnSpec[]
  readonly indexes: readonly IndexSpec[]
  /** Columns of the `searchable` fields, indexed for `?q=`; absent in older snapshots: none. */
  readonly search?: readonly string[]
}

export interface ModuleSchemas {
  readonly create: JsonSchema
  readonly update: JsonSchema
  readonly record: JsonSchema
  /**
   * What the success responses are serialized by (fast-json-stringify through Fastify):
   * the record's shape with plain types only. Encrypted, array and mixed values
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

/** A `ref` field: the module it points to and what deleting a target does. */
export interface ReferenceSpec {
  readonly field: string
  readonly column: string
  /** The target module's name. */
  readonly module: string
  readonly onDelete: 'restrict' | 'allow'
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
  /** `bloqueados` (D41) is granted only by a module with `retention:`, and only where named. */
  readonly permissions: Readonly<Record<ModuleAction, string>>
  readonly routes: readonly RouteSpec[]
  /** Need to know per role; a role absent here acts on the whole module. */
  readonly access: ReadonlyMap<string, AccessSpec>
  readonly workflow: WorkflowSpec | undefined
  /** The module's `ref` fields, in declaration order. */
  readonly references: readonly ReferenceSpec[]
  /** How long its records are kept and when they are reviewed (D41); undefined: not declared. */
  readonly retention: RetentionSpec | undefined
}

/** Where a record's retention clock starts (D41). */
export type RetentionFromSpec =
  | { readonly kind: 'created' }
  | { readonly kind: 'field'; readonly field: string }
  | { readonly kind: 'state'; readonly field: string; readonly state: string }

/** A module's `retention:` compiled (D41): durations parsed, `from` resolved. */
export interface RetentionSpec {
  readonly basis: string
  /** As written in modules.yaml, for reports. */
  readonly fromText: string
  readonly from: RetentionFromSpec
  readonly reviewEvery: Duration
  readonly keepAtMost: Duration | undefined
  readonly onExpiry: OnExpiry
}

/** A value a scope compares with: literals (any of them) or an attribute of the acting user. */
export type ScopeValueSpec = { readonly literals: readonly unknown[] } | { readonly user: string }

/** A record scope as data: `db/` turns it into SQL per dialect once the user is known. */
export type ScopeSpec =
  | { readonly kind: 'any' | 'all'; readonly of: readonly ScopeSpec[] }
  | {
      readonly kind: 'match'
      readonly field: string
      readonly column: string
      readonly storage: StorageKind
      readonly value: ScopeValueSpec
    }

export interface AccessSpec {
  readonly role: string
  /** The records the role sees and acts on; undefined: all of them. */
  readonly scope: ScopeSpec | undefined
  /** And-ed with `scope` for editar and eliminar. */
  readonly writeScope: ScopeSpec | undefined
  readonly cannotRead: ReadonlySet<string>
  readonly cannotWrite: ReadonlySet<string>
  readonly defaults: readonly {
    readonly field: string
    readonly value: { readonly literal: unknown } | { readonly user: string }
  }[]
}

export interface MoveSpec {
  /** Undefined: every role that may edit the module. */
  readonly roles: ReadonlySet<string> | undefined
  readonly requires: readonly string[]
}

export interface WorkflowSpec {
  readonly field: string
  readonly states: readonly string[]
  readonly createIn: readonly string[]
  readonly final: ReadonlySet<string>
  /** Roles that may edit or delete a record in a final state (F9); empty: nobody. */
  readonly finalEditableBy: ReadonlySet<string>
  /** from -> to -> who and what. */
  readonly moves: ReadonlyMap<string, ReadonlyMap<string, MoveSpec>>
  /** state -> fields that cannot change while the record is in it. */
  readonly readonlyIn: ReadonlyMap<string, readonly string[]>
  /** state -> fields every way into it required: they cannot be cleared while it holds (F9). */
  readonly requiredIn: ReadonlyMap<string, readonly string[]>
}

export interface RoleSpec {
  readonly name: string
  readonly description: string | undefined
  /** As written, wildcards included: what `covers` compares. */
  readonly permissions: readonly string[]
  /** Every concrete `{module}.{action}` the role holds, wildcards expanded. */
  readonly granted: ReadonlySet<string>
  /** D42: its accounts reach only /me, their second factors and logout until they enrol one. */
  readonly secondFactorRequired: boolean
  /** D42 `segundo_factor: passkey`: only a passkey counts as that factor (phishing-resistant), not TOTP. */
  readonly passkeyRequired: boolean
}

export interface AccountsSpec extends AccountsDef {
  readonly spec: ModuleSpec
  /** Account fields that access rules name as `$user.<field>`: loaded with the account. */
  readonly userFields: readonly string[]
}

export interface ServiceSpec {
  readonly service: ServiceDef
  readonly modules: readonly ModuleSpec[]
  readonly moduleByName: ReadonlyMap<string, ModuleSpec>
  readonly roles: ReadonlyMap<string, RoleSpec>
  readonly accounts: AccountsSpec
  readonly audit: { readonly path: string; readonly permission: string }
  /** The retention queue's path and permissions (D41). */
  readonly retention: {
    readonly path: string
    readonly permissions: Readonly<Record<RetentionAction, string>>
  }
  /** Where a person's records are found across modules, and its permission (D41, `interesados.ver`). */
  readonly subjects: { readonly path: string; readonly permission: string }
}
