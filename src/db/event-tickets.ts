// Single-use tickets that let a browser's EventSource open a live feed (issue #16 item 5): an
// EventSource cannot send an Authorization header, and a bearer token in a URL ends in logs.
// A ticket is random, stored hashed in the database (any instance redeems it), bound to the
// token that asked for it (its revocation ends the stream too), and lives seconds.
import { randomBytes } from 'node:crypto'
import type { Database } from './database.js'
import { sha256Hex } from './canonical.js'
import { SYSTEM_TABLES } from './migrate/system-tables.js'

export interface EventTicketStore {
  /** A new ticket for `claims` (the asking token's claims), valid until `expiresAtMs`. */
  issue(claims: object, nowMs: number, expiresAtMs: number): Promise<string>
  /** The claims of a live ticket, which is spent; undefined when unknown, expired or spent. */
  redeem(ticket: string, nowMs: number): Promise<unknown>
}

const table = SYSTEM_TABLES.eventTickets

export function createEventTicketStore(database: Database): EventTicketStore {
  const { db } = database
  return {
    async issue(claims, nowMs, expiresAtMs) {
      const ticket = randomBytes(24).toString('base64url')
      await db.transaction().execute(async (trx) => {
        // Spent or not, an expired ticket is worth nothing: forget those first.
        await trx.deleteFrom(table).where('expires_at', '<=', nowMs).execute()
        await trx
          .insertInto(table)
          .values({ ticket_hash: sha256Hex(ticket), claims: JSON.stringify(claims), expires_at: expiresAtMs })
          .execute()
      })
      return ticket
    },
    async redeem(ticket, nowMs) {
      // One DELETE: of two instances redeeming the same ticket at once, one gets the row.
      const row = await db
        .deleteFrom(table)
        .where('ticket_hash', '=', sha256Hex(ticket))
        .returning(['claims', 'expires_at'])
        .executeTakeFirst()
      if (row === undefined || Number(row['expires_at']) <= nowMs) return undefined
      return JSON.parse(String(row['claims'])) as unknown
    },
  }
}
