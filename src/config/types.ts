// The validated, typed shape of modules.yaml (`*Def`: what the YAML says).

import { FIELD_TYPE_NAMES, type FieldType } from './field-type-names.js'

export type { FieldType }
/** The types a field may have, in the order of the declarations. */
export const FIELD_TYPES: readonly FieldType[] = FIELD_TYPE_NAMES

export const ACTIONS = ['ver', 'crear', 'editar', 'eliminar', 'descifrar'] as const
export type Action = (typeof ACTIONS)[number]
/**
 * D41: the module action that reads blocked records (`{module}.bloqueados`), for modules that
 * declare `retention:`. Granted only where a role names it (`denuncias.bloqueados`,
 * `*.bloqueados`), never by a `*` action (`denuncias.*`, `*.*`): a wildcard written for everyday
 * work must not lift a restriction of processing.
 */
export const BLOCKED_ACTION = 'bloqueados'
export type ModuleAction = Action | typeof BLOCKED_ACTION

export interface FieldDef {
  readonly name: string
  readonly type: FieldType
  readonly description?: string
  readonly required: boolean
  readonly unique: boolean
  readonly encrypted: boolean
  readonly index: boolean
  /** Its words are found by the list's `?q=` text search. */
  readonly searchable: boolean
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
  /** `ref` only: the module whose record ids the field holds. */
  readonly module?: string
  /** `ref` only: whether deleting a referenced target is refused (restrict, the default) or allowed. */
  readonly onDelete?: 'restrict' | 'allow'
  /** `file` only (D43): the largest file accepted, in bytes. */
  readonly maxSize?: number
  /** `file` only (D43): the MIME types accepted, each checked on the file's bytes. */
  readonly types?: readonly string[]
  /** Enum values renamed since the last migration, old -> new. */
  readonly renamedValues?: Readonly<Record<string, string>>
}

export interface ModuleDef {
  /** Path segment, table name and permission namespace (D2). */
  readonly name: string
  readonly prefix: string
  readonly description?: string
  readonly fields: readonly FieldDef[]
  /** Composite indexes: each lists two or more field names, in index order. */
  readonly indexes: readonly (readonly string[])[]
  /** Need to know per role: record scopes and field rules; roles not named are module-wide. */
  readonly access?: readonly AccessDef[]
  /** The state field's workflow; undefined: any state to any state, as before. */
  readonly workflow?: WorkflowDef
  /** Holds personal data: every read of its records is a logged consultation. */
  readonly personalData?: boolean
  /** Per action, the roles that must give a justification (`X-Motivo`). */
  readonly motivoRequired?: Readonly<Partial<Record<MotivoAction, readonly string[]>>>
  /** How long its records are kept and when they are reviewed (D41); required with personal data. */
  readonly retention?: RetentionDef
}

/** What happens to a record once it is due (D41): a person reviews it, or it is blocked or erased. */
export const ON_EXPIRY = ['review', 'block', 'erase'] as const
export type OnExpiry = (typeof ON_EXPIRY)[number]

/** `retention:` of a module as written (D41); durations and `from` are checked by config rules. */
export interface RetentionDef {
  /** The legal basis for keeping the records, free text. */
  readonly basis: string
  /** `_created`, a date or datetime field, or `estado:<state>` (when the record entered that state). */
  readonly from: string
  /** `3y`, `6m`, `30d`. */
  readonly reviewEvery: string
  readonly keepAtMost?: string
  readonly onExpiry: OnExpiry
}

/** The service's own permission namespace for the retention queue and its decisions (D41). */
export const RETENTION_NAMESPACE = 'retencion'
export const RETENTION_ACTIONS = ['ver', 'decidir'] as const
export type RetentionAction = (typeof RETENTION_ACTIONS)[number]
/** The service's own namespace for finding a person's records across modules (D41): `interesados.ver`. */
export const SUBJECTS_NAMESPACE = 'interesados'
/** `from: estado:<state>`: the clock starts when the record entered that state. */
export const STATE_FROM_PREFIX = 'estado:'

/** The actions `motivo_requerido:` can name: reads and the three writes. */
export const MOTIVO_ACTIONS = ['consultar', 'crear', 'editar', 'eliminar'] as const
export type MotivoAction = (typeof MOTIVO_ACTIONS)[number]

/** Where a part of modules.yaml was written, for problems found after parsing. */
export type DefPath = readonly (string | number)[]

/** `$user.<attribute>` in modules.yaml: the acting user's id, role or a field of their account. */
export interface UserRefDef {
  readonly user: string
}

export type LiteralDef = string | number | boolean | null

/** A value a condition compares with: literals (a list means any of them) or the acting user's attribute. */
export type ConditionValueDef = LiteralDef | readonly LiteralDef[] | UserRefDef

/** A condition on a record and the acting user: `any` (or), `all` (and), or one field matching a value. */
export type ConditionDef =
  | { readonly any: readonly ConditionDef[] }
  | { readonly all: readonly ConditionDef[] }
  | { readonly field: string; readonly value: ConditionValueDef; readonly at: DefPath }

export interface AccessDef {
  readonly role: string
  /** The records this role sees and acts on. */
  readonly scope?: ConditionDef
  /** Narrows editing and deleting further (and-ed with `scope`). */
  readonly writeScope?: ConditionDef
  readonly cannotRead: readonly string[]
  readonly cannotWrite: readonly string[]
  /** Values filled on create when the request does not send them (may name the acting user). */
  readonly defaults: readonly { readonly field: string; readonly value: ConditionValueDef }[]
}

export interface MoveDef {
  /** States the move leaves from; `*` is every state that is not final. */
  readonly from: readonly string[]
  readonly to: readonly string[]
  /** Roles allowed to make the move; undefined: every role that may edit the module. */
  readonly roles?: readonly string[]
  /** Fields that must hold a value after the move. */
  readonly requires: readonly string[]
}

export interface WorkflowDef {
  /** States a record may be created in through the API; default: the first state (D6). */
  readonly createIn?: readonly string[]
  readonly moves: readonly MoveDef[]
  readonly final: readonly string[]
  /** Roles that may still edit or delete a record in a final state (F9); default: none. */
  readonly finalEditableBy?: readonly string[]
  readonly readonly: readonly { readonly fields: readonly string[]; readonly in: readonly string[] }[]
}

/** D42: what a role asks of its accounts' second factor; absent, nothing. */
export type SecondFactorRule = 'obligatorio' | 'passkey'

export interface RoleDef {
  readonly name: string
  readonly description?: string
  readonly permissions: readonly string[]
  readonly secondFactor?: SecondFactorRule
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
