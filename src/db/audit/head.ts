// The head of the audit chain (D18) as a signed document names it: its last entry and how many
// entries lead to it. What `records audit checkpoint` signs and what an acta de eliminación (D41)
// records after its run.
import type { Db } from '../database.js'
import { SYSTEM_TABLES } from '../system-tables.js'

export interface AuditHead {
  readonly seq: number
  readonly hash: string
  readonly at: string
  /** Entries in the chain up to and including `seq`. */
  readonly entradas: number
}

/** The chain's last entry and its count; undefined when the chain is empty. */
export async function readAuditHead(db: Db): Promise<AuditHead | undefined> {
  const head = await db
    .selectFrom(SYSTEM_TABLES.audit)
    .select(['seq', 'hash', 'at'])
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst()
  if (head === undefined) return undefined
  const count = await db
    .selectFrom(SYSTEM_TABLES.audit)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('seq', '<=', Number(head['seq']))
    .executeTakeFirst()
  return {
    seq: Number(head['seq']),
    hash: String(head['hash']),
    at: String(head['at']),
    entradas: Number(count?.['n']),
  }
}
