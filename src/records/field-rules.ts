// Field rules of a role: fields it cannot read (absent from answers), cannot write
// (403 naming the field) and values filled from the acting user on create. Pure.
import type { AccessSpec, ModuleSpec } from '../compile/types.js'
import { META } from '../compile/metadata.js'
import { forbidden } from '../errors.js'
import { userAttribute, type ActingUser } from './acting-user.js'

type Values = Record<string, unknown>

const accessOf = (spec: ModuleSpec, user: ActingUser | null): AccessSpec | undefined =>
  user === null ? undefined : spec.access.get(user.role)

/** Fields absent from every answer to `user`; undefined when none. */
export function hiddenFields(spec: ModuleSpec, user: ActingUser | null): ReadonlySet<string> | undefined {
  const hidden = accessOf(spec, user)?.cannotRead
  return hidden === undefined || hidden.size === 0 ? undefined : hidden
}

/** A record without the fields its reader may not read (not masked: absent). */
export function withoutHidden<T extends Readonly<Values>>(record: T, hidden: ReadonlySet<string> | undefined): T {
  if (hidden === undefined) return record
  const out: Values = {}
  for (const key of Object.keys(record)) if (!hidden.has(key)) out[key] = record[key]
  return out as T
}

/**
 * What of a record one reader sees (F4): `hidden`, the fields absent for them; `whole`, whether
 * they read every field in clear (no field hidden, and the encrypted ones decrypted when the
 * module has any). Only such a reader can recompute `_hash` (D17), so only they get `_sal`.
 */
export interface RecordReader {
  readonly hidden: ReadonlySet<string> | undefined
  readonly whole: boolean
}

export function recordReader(spec: ModuleSpec, user: ActingUser | null, reveal: boolean): RecordReader {
  const hidden = hiddenFields(spec, user)
  return { hidden, whole: hidden === undefined && (reveal || spec.encryptedFields.length === 0) }
}

/**
 * A record as `reader` may see it (F4, D17): the fields they may not read absent; the salt only
 * to a reader of every field; and a `_hash` without a salt (a record last written before salts
 * were kept) left out for anyone else, since hashing guesses with the fields shown could confirm
 * an unread value. A salted `_hash` tells nothing to whoever lacks the salt.
 */
export function shownTo<T extends Readonly<Values>>(record: T, reader: RecordReader): T {
  const visible = withoutHidden(record, reader.hidden)
  if (reader.whole) return visible
  const { [META.salt]: salt, ...out } = visible as Values
  if (salt === undefined || salt === null) delete out[META.hash]
  return out as T
}

/**
 * The `record_hash` of an audit entry as `reader` may see it: as `_hash` above, null when the
 * version it names had no salt (`salted` false) and the reader does not read every field.
 */
export const recordHashShownTo = (hash: string | null, salted: boolean, reader: RecordReader): string | null =>
  reader.whole || salted ? hash : null

/** 403 naming every field of `values` the role may not write. */
export function checkWritable(spec: ModuleSpec, user: ActingUser | null, values: Readonly<Values>): void {
  const denied = accessOf(spec, user)?.cannotWrite
  if (denied === undefined || denied.size === 0) return
  const named = Object.keys(values).filter((k) => denied.has(k))
  if (named.length > 0)
    throw forbidden(
      named.map((field) => ({
        field,
        message: `El rol '${user?.role}' no puede escribir el campo '${field}' (cannot_write)`,
      })),
    )
}

/** The role's `defaults:` filled where the request sent nothing (an agente's denuncia assigned to them). */
export function withUserDefaults(spec: ModuleSpec, user: ActingUser | null, values: Readonly<Values>): Values {
  const access = accessOf(spec, user)
  if (access === undefined || access.defaults.length === 0 || user === null) return { ...values }
  const out: Values = { ...values }
  for (const { field, value } of access.defaults) {
    if (out[field] !== undefined && out[field] !== null) continue
    const filled = 'user' in value ? userAttribute(user, value.user) : value.literal
    if (filled !== null && filled !== undefined) out[field] = filled
  }
  return out
}
