// Verifies the audit chain and every record against it (D17, D18): an edited, deleted or
// reordered audit entry, or a record changed behind its last entry's hash, is named. A record
// erased by a `suprimir` entry (D41) is expected gone; one back in the database after it is named.
import { META } from '../../compile/metadata.js'
import type { ModuleSpec, ServiceSpec } from '../../compile/types.js'
import { auditEntryFromRow, GENESIS_HASH, hashAuditEntry } from '../audit/log.js'
import type { Database, Row } from '../database.js'
import { SYSTEM_TABLES } from '../system-tables.js'
import { isDestroyedRecordKey, type RecordCodec } from '../records/codec.js'
import { RECORD_VALUE_PREFIX } from '../crypto.js'
import { recordPages } from '../records/pages.js'

export interface IntegrityProblem {
  readonly kind:
    | 'audit_gap'
    | 'audit_link'
    | 'audit_hash'
    | 'record_hash'
    | 'record_unaudited'
    | 'record_mismatch'
    | 'record_missing'
    | 'record_erased'
    | 'record_decrypt'
    | 'record_key'
    | 'checkpoint_signature'
  readonly seq?: number
  readonly module?: string
  readonly recordId?: string
  readonly field?: string
  readonly message: string
}

export interface IntegrityReport {
  readonly entries: number
  readonly records: number
  readonly problems: readonly IntegrityProblem[]
  /**
   * Records whose data key (D41) the key store no longer holds: erased after this copy of the
   * database was taken, so their encrypted values are unreadable on purpose. Not a problem.
   */
  readonly destroyedKeys: readonly { readonly module: string; readonly recordId: string }[]
}

export interface ValueCheck {
  /** Ids of the configured keys: a value under any other key is named. */
  readonly keyIds?: ReadonlySet<string>
  /** Decrypt every stored value: proves each one reads back with the configured keys. */
  readonly decrypt?: boolean
}

const PAGE = 1000

/** The problem of each encrypted value of `row` that the configured keys cannot read. */
function checkValues(
  module: ModuleSpec,
  row: Row,
  codec: RecordCodec,
  check: ValueCheck,
  problems: IntegrityProblem[],
): void {
  const recordId = String(row[META.id])
  for (const field of module.encryptedFields) {
    const raw = row[field.column]
    if (raw === null || raw === undefined) continue
    const keyId = String(raw).split('.')[1] ?? '?'
    // A value under its record's own key (D41): the key store's wrapping keys are the field keys.
    const recordKey = String(raw).startsWith(RECORD_VALUE_PREFIX)
    if (recordKey && codec.recordKeyState(keyId) === 'unreadable') {
      problems.push({
        kind: 'record_key',
        module: module.name,
        recordId,
        field: field.name,
        message: `El campo ${field.name} del registro ${recordId} (${module.name}) está bajo la clave de datos ${keyId}, cuya fila en el almacén de claves no se desenvuelve (alterada o de otro registro)`,
      })
      continue
    }
    let readable = recordKey
      ? codec.recordKeyState(keyId) !== 'unknown'
      : check.keyIds === undefined || check.keyIds.has(keyId)
    if (readable && check.decrypt === true) {
      try {
        codec.plainValue(module, field, row)
      } catch (error) {
        // A destroyed record key is reported apart (IntegrityReport.destroyedKeys).
        readable = isDestroyedRecordKey(error)
      }
    }
    if (!readable)
      problems.push({
        kind: 'record_key',
        module: module.name,
        recordId,
        field: field.name,
        message: `El campo ${field.name} del registro ${recordId} (${module.name}) no se descifra con las claves configuradas (clave ${keyId})`,
      })
  }
}

export async function verifyIntegrity(
  database: Database,
  spec: ServiceSpec,
  codec: RecordCodec,
  from = 1,
  check: ValueCheck = {},
): Promise<IntegrityReport> {
  const { db } = database
  const problems: IntegrityProblem[] = []
  const lastEntry = new Map<string, { seq: number; version: number | null; hash: string | null }>()
  /** Records a `suprimir` entry erased (D41), by module and id: the seq of that entry. */
  const erased = new Map<string, number>()
  const previous =
    from > 1
      ? await db
          .selectFrom(SYSTEM_TABLES.audit)
          .select(['seq', 'hash'])
          .where('seq', '=', from - 1)
          .executeTakeFirst()
      : undefined
  let expectedSeq = from
  let prevHash = previous === undefined ? GENESIS_HASH : String(previous['hash'])
  let entries = 0
  for (let after = from - 1; ;) {
    const rows = await db
      .selectFrom(SYSTEM_TABLES.audit)
      .selectAll()
      .where('seq', '>', after)
      .orderBy('seq')
      .limit(PAGE)
      .execute()
    if (rows.length === 0) break
    for (const row of rows) {
      const entry = auditEntryFromRow(row)
      entries += 1
      if (entry.seq !== expectedSeq)
        problems.push({
          kind: 'audit_gap',
          seq: entry.seq,
          message: `Faltan entradas de auditoría entre ${expectedSeq - 1} y ${entry.seq}`,
        })
      if (entry.prev_hash !== prevHash)
        problems.push({
          kind: 'audit_link',
          seq: entry.seq,
          message: `La entrada ${entry.seq} no enlaza con la anterior (reordenada, insertada o anterior alterada)`,
        })
      const { hash, ...content } = entry
      if (hashAuditEntry(content) !== hash)
        problems.push({ kind: 'audit_hash', seq: entry.seq, message: `La entrada ${entry.seq} ha sido alterada` })
      if (entry.action === 'suprimir' && entry.module !== null && entry.record_id !== null)
        erased.set(`${entry.module}\u0000${entry.record_id}`, entry.seq)
      if (entry.module !== null && entry.record_id !== null && entry.record_hash !== null)
        lastEntry.set(`${entry.module}\u0000${entry.record_id}`, {
          seq: entry.seq,
          version: entry.version,
          hash: entry.record_hash,
        })
      expectedSeq = entry.seq + 1
      prevHash = hash
    }
    after = Number(rows[rows.length - 1]?.['seq'])
  }

  let records = 0
  const destroyedKeys: { module: string; recordId: string }[] = []
  for (const module of spec.modules) {
    for await (const rows of recordPages(db, module, PAGE)) {
      for (const row of rows) {
        records += 1
        const recordId = String(row[META.id])
        const key = `${module.name}\u0000${recordId}`
        checkValues(module, row, codec, check, problems)
        if (codec.hash(module, row) !== row[META.hash])
          problems.push({
            kind: 'record_hash',
            module: module.name,
            recordId,
            message: `El registro ${recordId} no coincide con su _hash: fue modificado fuera del servicio`,
          })
        // The values the API would read as null with `_integridad`.
        const { failed, destroyed } = codec.decodeForRead(module, row, true)
        if (destroyed.length > 0) destroyedKeys.push({ module: module.name, recordId })
        if (failed.length > destroyed.length)
          problems.push({
            kind: 'record_decrypt',
            module: module.name,
            recordId,
            message: `El registro ${recordId} de ${module.name} tiene valores cifrados que no se pueden descifrar (${failed.join(', ')}): alterados, de otro registro o de una clave que falta`,
          })
        const last = lastEntry.get(key)
        lastEntry.delete(key)
        const erasedBy = erased.get(key)
        if (erasedBy !== undefined) {
          problems.push({
            kind: 'record_erased',
            module: module.name,
            recordId,
            seq: erasedBy,
            message: `El registro ${recordId} de ${module.name} fue suprimido (entrada ${erasedBy}) y vuelve a estar en la base de datos`,
          })
          continue
        }
        if (from > 1 && last === undefined) continue // its entries may precede the range
        if (last === undefined)
          problems.push({
            kind: 'record_unaudited',
            module: module.name,
            recordId,
            message: `El registro ${recordId} no tiene entradas de auditoría`,
          })
        else if (last.hash !== row[META.hash] || last.version !== Number(row[META.version]))
          problems.push({
            kind: 'record_mismatch',
            module: module.name,
            recordId,
            seq: last.seq,
            message: `El registro ${recordId} no coincide con su última entrada de auditoría (${last.seq})`,
          })
      }
    }
  }
  for (const [key, last] of lastEntry) {
    // Its values are gone on purpose; a write sealed after the erasure's entry (D38) changes nothing.
    if (erased.has(key)) continue
    const [module, recordId] = key.split('\u0000')
    if (spec.moduleByName.has(module ?? ''))
      problems.push({
        kind: 'record_missing',
        module: module ?? '',
        recordId: recordId ?? '',
        seq: last.seq,
        message: `El registro ${recordId} de la auditoría ya no está en la base de datos`,
      })
  }
  return { entries, records, problems, destroyedKeys }
}
