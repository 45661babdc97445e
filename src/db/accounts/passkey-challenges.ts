// D42: the challenges of the passkey ceremonies, kept server-side until their answer comes back.
// They live in the single-use tickets' table (any instance redeems them, one DELETE spends them)
// under a hash of their own prefix, so a challenge is never an event ticket nor the other way round.
import { randomBytes } from 'node:crypto'
import { sha256Hex } from '../canonical.js'
import type { Database } from '../database.js'
import { SYSTEM_TABLES } from '../system-tables.js'

/** What a challenge was issued for: enrolling a passkey of `account`, or a sign-in (no account yet). */
export type PasskeyCeremony =
  { readonly ceremony: 'enrol'; readonly account: string } | { readonly ceremony: 'sign-in' }

export interface PasskeyChallengeStore {
  /** A new random challenge (base64url) for `ceremony`, valid until `expiresAtMs`. */
  issue(ceremony: PasskeyCeremony, nowMs: number, expiresAtMs: number): Promise<string>
  /** Spends `challenge`; true when it was live and issued for exactly `ceremony`. */
  redeem(challenge: string, ceremony: PasskeyCeremony, nowMs: number): Promise<boolean>
}

const table = SYSTEM_TABLES.eventTickets
const keyOf = (challenge: string): string => sha256Hex(`webauthn:${challenge}`)

export function createPasskeyChallengeStore(database: Database): PasskeyChallengeStore {
  const { db } = database
  return {
    async issue(ceremony, nowMs, expiresAtMs) {
      const challenge = randomBytes(32).toString('base64url')
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom(table).where('expires_at', '<=', nowMs).execute()
        await trx
          .insertInto(table)
          .values({ ticket_hash: keyOf(challenge), claims: JSON.stringify(ceremony), expires_at: expiresAtMs })
          .execute()
      })
      return challenge
    },
    async redeem(challenge, ceremony, nowMs) {
      const row = await db
        .deleteFrom(table)
        .where('ticket_hash', '=', keyOf(challenge))
        .returning(['claims', 'expires_at'])
        .executeTakeFirst()
      if (row === undefined || Number(row['expires_at']) <= nowMs) return false
      return String(row['claims']) === JSON.stringify(ceremony)
    },
  }
}
