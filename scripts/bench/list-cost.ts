// The cost of one list page (S2: limit 100, no filter) split into its parts, measured in
// process on the seeded database through the store's own pieces: page query, count query,
// decode (decrypt every encrypted value, build records) and serialization of the envelope.
import { performance } from 'node:perf_hooks'
import { META, ROW_COLUMN } from '../../src/compile/metadata.js'
import type { ModuleSpec } from '../../src/compile/types.js'
import type { Row } from '../../src/db/database.js'
import type { OpenService } from '../../src/app/service.js'

export interface ListCost {
  readonly queryUs: number
  readonly countUs: number
  readonly decryptUs: number
  readonly serializeUs: number
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number

async function time(iterations: number, work: (i: number) => Promise<unknown> | unknown): Promise<number> {
  const samples: number[] = []
  for (let i = 0; i < iterations; i++) {
    const start = performance.now()
    await work(i)
    samples.push((performance.now() - start) * 1000)
  }
  return median(samples)
}

export async function measureListCost(
  service: OpenService,
  spec: ModuleSpec,
  serialize: (payload: unknown) => string,
  maxOffset: number,
): Promise<ListCost> {
  const { db } = service.database
  const live = () => db.selectFrom(spec.table.name).where(META.deleted, 'is', null)
  const offset = (i: number) => (i * 7919) % Math.max(1, maxOffset)
  const page = (i: number) => live().selectAll().orderBy(ROW_COLUMN, 'asc').limit(100).offset(offset(i)).execute()
  const iterations = 200
  const queryUs = await time(iterations, page)
  const countUs = await time(iterations, () =>
    live()
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirst(),
  )
  const rows: Row[] = await page(0)
  const decryptUs = await time(iterations, () => rows.map((row) => service.codec.decode(spec, row, true)))
  const records = rows.map((row) => service.codec.decode(spec, row, true))
  const envelope = { success: true, data: { records, total: 1, limit: 100, offset: 0 } }
  const serializeUs = await time(iterations, () => serialize(envelope))
  return { queryUs, countUs, decryptUs, serializeUs }
}
