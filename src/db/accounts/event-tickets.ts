// Single-use tickets that let a browser's EventSource open a live feed: an
// EventSource cannot send an Authorization header, and a bearer token in a URL ends in logs.
// A ticket is random, stored hashed in the database (any instance redeems it), bound to the
// token that asked for it (its revocation ends the stream too), and lives seconds. It carries
// the justification given when it was asked for (`X-Motivo`): the EventSource that redeems it
// cannot send that header, and the feed's consultations name it (F3).
import { randomBytes } from 'node:crypto'
import type { Database } from '../database.js'
import { sha256Hex } from '../canonical.js'
import { SYSTEM_TABLES } from '../system-tables.js'

/** What a ticket stands for: the asking token's claims and the motivo that request gave. */
export interface TicketGrant {
  readonly claims: unknown
  readonly motivo: string | null
}

export interface EventTicketStore {
  /** A new ticket for `grant`, valid until `expiresAtMs`. */
  issue(grant: TicketGrant, nowMs: number, expiresAtMs: number): Promise<string>
  /** The grant of a live ticket, which is spent; undefined when unknown, expired or spent. */
  redeem(ticket: string, nowMs: number): Promise<TicketGrant | undefined>
}

const table = SYSTEM_TABLES.eventTickets

export function createEventTicketStore(database: Database): EventTicketStore {
  const { db } = database
  return {
    async issue(grant, nowMs, expiresAtMs) {
      const ticket = randomBytes(24).toString('base64url')
      await db.transaction().execute(async (trx) => {
        // Spent or not, an expired ticket is worth nothing: forget those first.
        await trx.deleteFrom(table).where('expires_at', '<=', nowMs).execute()
        await trx
          .insertInto(table)
          // The column `claims` holds the whole grant (claims and motivo).
          .values({ ticket_hash: sha256Hex(ticket), claims: JSON.stringify(grant), expires_at: expiresAtMs })
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
      return JSON.parse(String(row['claims'])) as TicketGrant
    },
  }
}
