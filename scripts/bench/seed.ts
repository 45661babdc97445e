// The benchmark's fast path for N denuncias: the record store's own codec (encryption,
// blind indexes, `_hash`) and audit chain (one `crear` entry per record, D17/D18), written
// in transactions of 5,000 records with multi-row inserts instead of one HTTP request and
// one transaction per record. Rows are indistinguishable from ones the API creates; the
// id sequence is left at N so the API's next create continues it.
import { formatTimestamp, formatExactTimestamp } from '../../src/compile/time.js'
import { META } from '../../src/compile/metadata.js'
import type { ModuleSpec } from '../../src/compile/types.js'
import { appendAudit, type AuditEvent } from '../../src/db/audit-log.js'
import type { Row } from '../../src/db/database.js'
import { SYSTEM_TABLES } from '../../src/db/migrate/system-tables.js'
import { formatRecordId } from '../../src/db/sequences.js'
import type { OpenService } from '../../src/service.js'

export const ESTADOS = ['pendiente', 'investigacion', 'archivada', 'judicializada'] as const
export const PRIORIDADES = ['baja', 'media', 'alta', 'urgente'] as const
export const TIPOS = ['hurto', 'robo', 'lesiones', 'daños'] as const

const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)] as T

/** A valid create body for denuncias, as S4 posts it and the seed stores it. */
export function denunciaValues(i: number): Record<string, unknown> {
  return {
    denunciante_nombre: `Persona ${i}`,
    denunciante_dni: `${String(10_000_000 + (i % 90_000_000))}X`,
    denunciante_telefono: `6${String(i % 100_000_000).padStart(8, '0')}`,
    denunciante_domicilio: `Calle Mayor ${i % 500}, ${i % 7}º`,
    tipo: pick(TIPOS),
    fecha_hechos: '2026-11-20 10:00:00',
    lugar_hechos: 'Plaza de España',
    descripcion: `Hechos denunciados número ${i}: sustracción de un bolso en la vía pública.`,
    estado: pick(ESTADOS),
    prioridad: pick(PRIORIDADES),
  }
}

const BATCH = 5000
/** SQLite allows 32,766 bound values per statement: rows per INSERT stay well under it. */
const ROWS_PER_INSERT = 400

/** Seeds `count` denuncias; returns the year their ids carry. */
export async function seedDenuncias(service: OpenService, spec: ModuleSpec, count: number, actor: string, onProgress?: (done: number) => void): Promise<number> {
  const { db } = service.database
  const now = new Date()
  const timezone = service.spec.service.timezone
  const stamp = formatTimestamp(now, timezone)
  const year = Number(stamp.slice(0, 4))
  const at = formatExactTimestamp(now, timezone)
  for (let start = 0; start < count; start += BATCH) {
    const end = Math.min(count, start + BATCH)
    const rows: Row[] = []
    const events: AuditEvent[] = []
    for (let n = start + 1; n <= end; n++) {
      const id = formatRecordId(spec.prefix, year, n)
      const values = denunciaValues(n)
      const stored: Row = {
        [META.id]: id, ...service.codec.encode(spec, values, id),
        [META.created]: stamp, [META.createdBy]: actor, [META.modified]: stamp, [META.modifiedBy]: actor,
        [META.version]: 1, [META.deleted]: null,
      }
      stored[META.hash] = service.codec.hash(spec, stored)
      rows.push(stored)
      events.push({ userId: actor, action: 'crear', module: spec.name, recordId: id, version: 1, recordHash: String(stored[META.hash]), fields: Object.keys(values) })
    }
    await db.transaction().execute(async (trx) => {
      for (let i = 0; i < rows.length; i += ROWS_PER_INSERT)
        await trx.insertInto(spec.table.name).values(rows.slice(i, i + ROWS_PER_INSERT)).execute()
      for (let i = 0; i < events.length; i += ROWS_PER_INSERT * 2)
        await appendAudit(trx, events.slice(i, i + ROWS_PER_INSERT * 2), at)
      await trx.insertInto(SYSTEM_TABLES.sequences).values({ prefix: spec.prefix, year, value: end })
        .onConflict((oc) => oc.columns(['prefix', 'year']).doUpdateSet({ value: end })).execute()
    })
    onProgress?.(end)
  }
  return year
}
