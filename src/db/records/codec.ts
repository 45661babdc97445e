// API values <-> stored columns for one module: encryption and blind indexes (D14, D16),
// password hashes (D22), JSON and boolean columns, masking (D15) and the `_hash` (D17).
import bcrypt from 'bcryptjs'
import { FIELD_TYPES, type Dialect } from '../../compile/field-types.js'
import { INTEGRITY, isBlindIndexColumn, MASK, META, ROW_COLUMN } from '../../compile/metadata.js'
import { integrityError, isAppError, settingInvalid } from '../../errors.js'
import type { FieldSpec, ModuleSpec } from '../../compile/types.js'
import { canonicalJson, plaintextOf, sha256Hex } from '../canonical.js'
import { decryptWithRecordKey, encryptWithRecordKey, recordKeyIdOf, type FieldCipher } from '../crypto.js'
import type { Db, Row } from '../database.js'
import type { RecordKeys } from '../keys/record-keys.js'
import { VALUE_CONVERSIONS } from '../dialects/values.js'

/** The cost factor of every stored password (D22) and of the dummy hash of an unknown user (D19). */
export const BCRYPT_ROUNDS = 10

/**
 * A lower cost for the test suite only: about 140 ms of CPU per hash or comparison at 10, and
 * the suite hashes and compares thousands of passwords. Honoured only inside a tap test process
 * (tap sets TAP=1 in each, and its children inherit it) and never with NODE_ENV=production; set
 * anywhere else, the start is refused rather than silently ignored, so a production service
 * never runs with a low cost and nobody believes it does. Unset: BCRYPT_ROUNDS.
 * test/setup/register.mjs sets it for the suite; a test that measures bcrypt (the D19 timing)
 * unsets it.
 */
export const TEST_BCRYPT_ROUNDS = 'RECORDS_TEST_BCRYPT_ROUNDS'

/** The cost new password hashes get in this process (see TEST_BCRYPT_ROUNDS). */
export function bcryptRounds(env: NodeJS.ProcessEnv = process.env): number {
  const asked = env[TEST_BCRYPT_ROUNDS]
  if (asked === undefined || asked === '') return BCRYPT_ROUNDS
  if (env['TAP'] !== '1' || env['NODE_ENV'] === 'production')
    throw settingInvalid(
      `${TEST_BCRYPT_ROUNDS} solo se admite al ejecutar las pruebas (tap); quítela: las contraseñas usan el coste ${BCRYPT_ROUNDS}`,
    )
  const rounds = Number(asked)
  if (!Number.isInteger(rounds) || rounds < 4 || rounds > BCRYPT_ROUNDS)
    throw settingInvalid(`${TEST_BCRYPT_ROUNDS} debe ser un entero entre 4 y ${BCRYPT_ROUNDS} (recibido '${asked}')`)
  return rounds
}

/**
 * A value under a record key (D41) whose key the key store says was destroyed: the record was
 * erased after the copy of the database that holds it. It reads as unreadable, like a damaged
 * value; the causes of such errors are remembered here to tell them apart.
 */
const destroyedKeyCauses = new WeakSet<object>()

function destroyedRecordKey(context: string, keyId: string) {
  const cause = new Error(`${context}: la clave de datos '${keyId}' del registro fue destruida (registro suprimido)`)
  destroyedKeyCauses.add(cause)
  return integrityError(cause)
}

/** Whether `error` (an integrity error or its cause) is a destroyed record key's. */
export const isDestroyedRecordKey = (error: unknown): boolean =>
  typeof error === 'object' &&
  error !== null &&
  (destroyedKeyCauses.has(error) ||
    (typeof (error as { cause?: unknown }).cause === 'object' &&
      destroyedKeyCauses.has((error as { cause: object }).cause)))

/** Encryption is bound to the module and record: a value copied elsewhere fails its tag. */
export const encryptionContext = (spec: ModuleSpec, recordId: string): string => `${spec.name}:${recordId}`

export interface RecordCodec {
  /** Replaces password values by their bcrypt hashes; slow, so run before a transaction. */
  hashPasswords(spec: ModuleSpec, values: Row): Promise<Row>
  /** Columns for the given field values: ciphertext, blind index, JSON, booleans. */
  encode(spec: ModuleSpec, values: Row, recordId: string): Row
  /**
   * A stored row as the API shows it; encrypted values decrypted or masked. `written`: the
   * API values this very write stored, by field name; their ciphertext is not decrypted
   * again (each value is decrypted once).
   */
  decode(spec: ModuleSpec, row: Row, reveal: boolean, written?: Row): Row
  /**
   * decode for the API's reads: a value that fails its integrity check does not fail the
   * record; it reads as null, the record carries the INTEGRITY marker and `failed` names it.
   * `only`: the fields to decode (`fields=`); the others are left out, never decrypted.
   */
  decodeForRead(
    spec: ModuleSpec,
    row: Row,
    reveal: boolean,
    written?: Row,
    only?: ReadonlySet<string>,
  ): { readonly record: Row; readonly failed: readonly string[]; readonly destroyed: readonly string[] }
  /** Plain value of one field of a stored row (for change detection). */
  plainValue(spec: ModuleSpec, field: FieldSpec, row: Row): unknown
  /** SHA-256 of the canonical stored record, `_hash` excluded (D17). */
  hash(spec: ModuleSpec, row: Row): string
  /** Blind-index values that match `value` under any configured key. */
  blindIndexes(value: unknown): readonly string[]
  /**
   * Columns of the encrypted values of `row` not under the active key, re-encrypted; {} when none.
   * A module with record keys (D41): `v1` values move under the record key bound by `prepareKeys`,
   * and a blind index not under the active key is rewritten (its value stays as it is).
   */
  reencrypt(spec: ModuleSpec, row: Row): Row
  /**
   * The field values of a stored row as a version keeps them: a plain value as
   * the API takes it, an encrypted one as stored (its ciphertext, never the clear value); empty
   * and write-only fields left out; the record's salt under `_sal` (F4).
   */
  snapshot(spec: ModuleSpec, row: Row): Row
  /** The columns of a version's values, as `decode` reads them (the inverse of `snapshot`). */
  fromSnapshot(spec: ModuleSpec, data: Row): Row
  /** In a write transaction, before `encode`: encrypt under the database's active key. */
  beforeWrite(trx: Db): Promise<void>
  /** Whether new values of `spec` go under per-record keys (D41). */
  usesRecordKeys(spec: ModuleSpec): boolean
  /** A data key (D41) as the key store knows it, once a result named it: held, destroyed or unknown. */
  recordKeyState(keyId: string): 'held' | 'destroyed' | 'unreadable' | 'unknown'
  /**
   * In a write transaction, before `encode` or `reencrypt` of these records: binds each to its
   * data key (D41), creating the missing ones; nothing for a module without record keys.
   */
  prepareKeys(trx: Db, spec: ModuleSpec, records: readonly { readonly id: string; readonly row?: Row }[]): Promise<void>
}

/**
 * The value of a non-textual encrypted field from its decrypted JSON. Before a plain string in
 * a `mixed` or `array` field was encrypted as JSON, it was encrypted as its bare text: a text
 * that is not JSON is such a string.
 */
function parseStoredJson(plaintext: string): unknown {
  try {
    return JSON.parse(plaintext) as unknown
  } catch {
    return plaintext
  }
}

export function createRecordCodec(
  dialect: Dialect,
  cipher: FieldCipher,
  beforeWrite: (trx: Db) => Promise<void> = async () => undefined,
  recordKeys?: RecordKeys,
): RecordCodec {
  const conversions = VALUE_CONVERSIONS[dialect]
  // Read once, when the service opens: a misplaced test setting refuses the start.
  const rounds = bcryptRounds()

  const logicalStored = (field: FieldSpec, raw: unknown): unknown =>
    raw === null || raw === undefined ? null : field.encrypted ? raw : conversions[field.storage].fromDb(raw)

  /** A `v1` value under the service keyring, an `r1` one under its record's data key (D41). */
  function decryptValue(stored: string, context: string): string {
    const keyId = recordKeyIdOf(stored)
    if (keyId === undefined) return cipher.decrypt(stored, context)
    const key = recordKeys?.keyOf(keyId)
    if (key === undefined && recordKeys?.isDestroyed(keyId) === true) throw destroyedRecordKey(context, keyId)
    if (key === undefined && recordKeys?.isUnreadable(keyId) === true)
      throw integrityError(new Error(`${context}: la clave de datos '${keyId}' no se desenvuelve (fila alterada)`))
    if (key === undefined) throw integrityError(new Error(`${context}: clave de datos desconocida '${keyId}'`))
    return decryptWithRecordKey(key, stored, context)
  }

  /** Encrypts a value of `recordId`: under its data key once `prepareKeys` bound one, else the service key. */
  function encryptValue(spec: ModuleSpec, recordId: string, plaintext: string): string {
    const context = encryptionContext(spec, recordId)
    const bound = recordKeys?.uses(spec) === true ? recordKeys.writeKeyOf(spec.name, recordId) : undefined
    return bound === undefined
      ? cipher.encrypt(plaintext, context)
      : encryptWithRecordKey(bound.key, bound.id, plaintext, context)
  }

  /** The API value of one stored column: decrypted (once) and parsed, or converted. */
  function plainOf(field: FieldSpec, raw: unknown, context: () => string): unknown {
    if (raw === null || raw === undefined) return null
    if (!field.encrypted) return conversions[field.storage].fromDb(raw)
    const plaintext = decryptValue(String(raw), context())
    return FIELD_TYPES[field.def.type].textual ? plaintext : parseStoredJson(plaintext)
  }

  /** A stored row as the API shows it; with `failed`, a value that fails its check is null and named there. */
  function decodeRow(
    spec: ModuleSpec,
    row: Row,
    reveal: boolean,
    written?: Row,
    failed?: string[],
    only?: ReadonlySet<string>,
    destroyed?: string[],
  ): Row {
    const out: Row = { [META.id]: row[META.id] }
    let context: string | undefined
    // The record's encryption context, built once per row, not once per value.
    const contextOf = () => (context ??= encryptionContext(spec, String(row[META.id])))
    for (const field of spec.fields) {
      if (field.writeOnly || (only !== undefined && !only.has(field.name))) continue
      const raw = row[field.column]
      if (raw === null || raw === undefined) out[field.name] = null
      else if (field.encrypted && !reveal) out[field.name] = MASK
      else if (
        field.encrypted &&
        written !== undefined &&
        written[field.name] !== undefined &&
        written[field.name] !== null
      )
        out[field.name] = written[field.name]
      else if (failed === undefined || !field.encrypted) out[field.name] = plainOf(field, raw, contextOf)
      else {
        try {
          out[field.name] = plainOf(field, raw, contextOf)
        } catch (error) {
          if (!isAppError(error)) throw error
          out[field.name] = null
          failed.push(field.name)
          if (isDestroyedRecordKey(error)) destroyed?.push(field.name)
        }
      }
    }
    out[META.created] = row[META.created]
    out[META.createdBy] = row[META.createdBy]
    out[META.modified] = row[META.modified]
    out[META.modifiedBy] = row[META.modifiedBy]
    out[META.version] = Number(row[META.version])
    out[META.hash] = row[META.hash]
    if (row[META.deleted] !== null && row[META.deleted] !== undefined) out[META.deleted] = row[META.deleted]
    // Who may see it is decided with the field rules (records/field-rules.ts `shownTo`, F4).
    if (row[META.salt] !== null && row[META.salt] !== undefined) out[META.salt] = row[META.salt]
    return out
  }

  const codec: RecordCodec = {
    async hashPasswords(spec, values) {
      const out: Row = { ...values }
      for (const field of spec.fields)
        if (field.writeOnly && typeof values[field.name] === 'string')
          out[field.name] = await bcrypt.hash(values[field.name] as string, rounds)
      return out
    },
    encode(spec, values, recordId) {
      const out: Row = {}
      for (const [name, value] of Object.entries(values)) {
        const field = spec.fieldsByName.get(name)
        if (field === undefined) continue
        if (value === null || value === undefined) {
          out[field.column] = null
          if (field.blindIndexColumn !== undefined) out[field.blindIndexColumn] = null
        } else if (field.encrypted) {
          // Textual types are encrypted as their text; the others as JSON, a string included.
          const stored = FIELD_TYPES[field.def.type].textual ? plaintextOf(value) : JSON.stringify(value)
          out[field.column] = encryptValue(spec, recordId, stored)
          if (field.blindIndexColumn !== undefined) out[field.blindIndexColumn] = cipher.blindIndex(plaintextOf(value))
        } else out[field.column] = conversions[field.storage].toDb(value)
      }
      return out
    },
    plainValue: (spec, field, row) =>
      plainOf(field, row[field.column], () => encryptionContext(spec, String(row[META.id]))),
    decode: (spec, row, reveal, written) => decodeRow(spec, row, reveal, written),
    decodeForRead(spec, row, reveal, written, only) {
      const failed: string[] = []
      const destroyed: string[] = []
      const record = decodeRow(spec, row, reveal, written, failed, only, destroyed)
      if (failed.length > 0) {
        record[INTEGRITY.marker] = INTEGRITY.failed
        record[INTEGRITY.fields] = failed
      }
      return { record, failed, destroyed }
    },
    hash(spec, row) {
      const stored: Row = {}
      for (const column of spec.table.columns) {
        if (column.name === ROW_COLUMN || column.name === META.hash || isBlindIndexColumn(column.name)) continue
        const field = spec.fieldsByName.get(column.name)
        const raw = row[column.name]
        // An empty field is left out: adding a field to modules.yaml changes no existing hash. So is
        // the salt of a record written before salts were kept (F4): its `_hash` stays what it was.
        if ((field !== undefined || column.name === META.salt) && (raw === null || raw === undefined)) continue
        stored[column.name] =
          field === undefined ? (column.name === META.version ? Number(raw) : (raw ?? null)) : logicalStored(field, raw)
      }
      return sha256Hex(canonicalJson(stored))
    },
    blindIndexes: (value) => cipher.blindIndexes(plaintextOf(value)),
    reencrypt(spec, row) {
      const out: Row = {}
      const recordId = String(row[META.id])
      const context = encryptionContext(spec, recordId)
      // A module with record keys: every `v1` value moves under the record's key once one is bound (D41).
      const toRecordKey = recordKeys?.uses(spec) === true && recordKeys.writeKeyOf(spec.name, recordId) !== undefined
      for (const field of spec.fields) {
        const raw = row[field.column]
        if (!field.encrypted || typeof raw !== 'string') continue
        if (recordKeyIdOf(raw) !== undefined) {
          // Under its record key already: only a blind index of a key since replaced is rewritten.
          if (field.blindIndexColumn === undefined) continue
          let plaintext: string
          try {
            plaintext = decryptValue(raw, context)
          } catch (error) {
            if (isDestroyedRecordKey(error)) continue // erased after this copy: nothing to index
            throw error
          }
          const index = cipher.blindIndex(plaintext)
          if (row[field.blindIndexColumn] !== index) out[field.blindIndexColumn] = index
          continue
        }
        if (!toRecordKey && cipher.keyIdOf(raw) === cipher.activeKeyId) continue
        const plaintext = cipher.decrypt(raw, context)
        out[field.column] = encryptValue(spec, recordId, plaintext)
        // The blind index stays under the service key (D16): rewritten only when that key changed.
        if (field.blindIndexColumn !== undefined && cipher.keyIdOf(raw) !== cipher.activeKeyId)
          out[field.blindIndexColumn] = cipher.blindIndex(plaintext)
      }
      return out
    },
    snapshot(spec, row) {
      const out: Row = {}
      for (const field of spec.fields) {
        const raw = row[field.column]
        if (field.writeOnly || raw === null || raw === undefined) continue
        out[field.name] = logicalStored(field, raw)
      }
      // The salt goes with the values: each version's `_hash` can be recomputed (D17, F4).
      if (row[META.salt] !== null && row[META.salt] !== undefined) out[META.salt] = row[META.salt]
      return out
    },
    fromSnapshot(spec, data) {
      const out: Row = {}
      for (const field of spec.fields) {
        const value = data[field.name]
        out[field.column] =
          value === null || value === undefined
            ? null
            : field.encrypted
              ? value
              : conversions[field.storage].toDb(value)
      }
      out[META.salt] = data[META.salt] ?? null
      return out
    },
    beforeWrite,
    usesRecordKeys: (spec) => recordKeys?.uses(spec) === true,
    recordKeyState: (keyId) =>
      recordKeys?.keyOf(keyId) !== undefined
        ? 'held'
        : recordKeys?.isDestroyed(keyId) === true
          ? 'destroyed'
          : recordKeys?.isUnreadable(keyId) === true
            ? 'unreadable'
            : 'unknown',
    prepareKeys: async (trx, spec, records) => {
      await recordKeys?.prepare(trx, spec, records)
    },
  }
  return codec
}
