// Instances starting together on one PostgreSQL database each open the per-record key store
// (D41), whose table they create if it is missing. Two sessions running CREATE TABLE IF NOT
// EXISTS at once can both find it missing, and the second fails with a duplicate in pg_class:
// the table is created under the migration lock, as the system tables are. The clean-clone run
// of 2026-11-29 at 3142ad5 failed so, in three-instances.test.ts.
import t from 'tap'
import { createDatabase } from '../../../src/db/connect.js'
import { createFieldCipher, createKeyring } from '../../../src/db/crypto.js'
import { openRecordKeys } from '../../../src/db/keys/record-keys.js'
import { createTestDatabase, requirePostgres, urlOf } from '../../helpers/postgres.js'

const reachable = await requirePostgres(t, 'PostgreSQL only: SQLite keeps its keys in a file of its own')

t.test('three key stores opened at once on a fresh PostgreSQL database all open', { skip: !reachable }, async (t) => {
  const cipher = createFieldCipher(createKeyring([Buffer.alloc(32, 7)]))
  for (let round = 1; round <= 5; round++) {
    const url = urlOf(await createTestDatabase())
    const databases = await Promise.all([1, 2, 3].map(() => createDatabase(url)))
    const opened = await Promise.allSettled(databases.map((database) => openRecordKeys({ database, cipher })))
    t.same(
      opened.map((o) => (o.status === 'rejected' ? String(o.reason) : o.status)),
      ['fulfilled', 'fulfilled', 'fulfilled'],
      `round ${round}`,
    )
    for (const o of opened) if (o.status === 'fulfilled') await o.value.close()
    for (const database of databases) await database.close()
  }
})
