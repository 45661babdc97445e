// The benchmark's fast path for N denuncias: the record store's bulk write (`createMany`, the
// path `records import` takes): the API's codec (encryption, blind indexes, `_hash`), ids from
// the sequence and one `crear` audit entry per record (D8, D17, D18), in transactions of 5,000
// records instead of one HTTP request and one transaction per record (createMany splits each
// into INSERTs of its default size: 5,000 rows in one INSERT exceed SQLite's 32,766 bound
// parameters). Rows are the ones the API would create; the API's next create continues the sequence.
import { formatTimestamp } from '../../src/compile/time.js'
import type { ModuleSpec } from '../../src/compile/types.js'
import type { OpenService } from '../../src/app/service.js'

export const ESTADOS = ['pendiente', 'investigacion', 'archivada', 'judicializada'] as const
export const PRIORIDADES = ['baja', 'media', 'alta', 'urgente'] as const
export const TIPOS = ['hurto', 'robo', 'lesiones', 'daños'] as const
/** What a list screen of denuncias shows; none of them is encrypted (S2f). */
export const PLAIN_FIELDS = [
  'denunciante_nombre',
  'tipo',
  'fecha_hechos',
  'lugar_hechos',
  'estado',
  'prioridad',
] as const
/**
 * A random offset of a 100-record page among the first `size` records (at most 10,000: the same
 * range at every size, so growth compares like with like; D11 lists).
 */
export const randomPageOffset = (size: number): number =>
  Math.floor(Math.random() * Math.max(1, Math.min(size, 10_000) - 100))
/** Denuncias are assigned round-robin to this many agents: one agent's scope is 1/AGENTS of the table. */
export const AGENTS = 20

/** The personal_id of the n-th agent (1-based) the seed assigns denuncias to. */
export const agentId = (n: number): string => `PER-${new Date().getFullYear()}-${String(n).padStart(5, '0')}`

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
    agente_asignado: agentId(1 + (i % AGENTS)),
  }
}

const BATCH = 5000

/**
 * The staff records the seeded denuncias are assigned to: `agente_asignado` references
 * personal, so agents 1..AGENTS exist before any denuncia names them.
 */
async function seedAgents(service: OpenService, actor: string): Promise<void> {
  const personal = service.spec.moduleByName.get('personal')
  if (personal === undefined) return
  const row = await service.database.db
    .selectFrom(personal.table.name)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirst()
  const existing = Number(row?.['n'] ?? 0)
  if (existing >= AGENTS) return
  const values = Array.from({ length: AGENTS - existing }, (_, i) => ({
    tip: `TIP-BENCH-${existing + i + 1}`,
    nombre: `Agente ${existing + i + 1}`,
    apellidos: 'Banco de pruebas',
    escala: 'oficial',
  }))
  await service.store.createMany(personal, values, { actor })
}

/** Seeds `count` denuncias (and the agents they are assigned to); returns the year their ids carry. */
export async function seedDenuncias(
  service: OpenService,
  spec: ModuleSpec,
  count: number,
  actor: string,
  onProgress?: (done: number) => void,
): Promise<number> {
  const year = Number(formatTimestamp(new Date(), service.spec.service.timezone).slice(0, 4))
  await seedAgents(service, actor)
  for (let start = 0; start < count; start += BATCH) {
    const end = Math.min(count, start + BATCH)
    const values = Array.from({ length: end - start }, (_, i) => denunciaValues(start + i + 1))
    await service.store.createMany(spec, values, { actor })
    onProgress?.(end)
  }
  return year
}

/**
 * A create body the API accepts: the workflow creates denuncias in `pendiente` only,
 * so S4 and the API seed post that state (the bulk seed imports every state, as an import may).
 */
export function creatableDenuncia(i: number): Record<string, unknown> {
  return { ...denunciaValues(i), estado: 'pendiente' }
}
