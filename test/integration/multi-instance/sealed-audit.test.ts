// D37, D38: writes of several instances on one database. PostgreSQL draws ids from a sequence
// and queues each write's audit entry in `_audit_pending`; the writer seals after its commit.
// Three services on one database (PostgreSQL: one database; SQLite: one file) create side by
// side: distinct ids, one chain that verifies with every create's entry exactly once, nothing
// left pending. A leftover (a crash between commit and seal) is sealed by the next start or
// the next seal; an upgraded database continues its id counter.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import t, { type Test } from 'tap'
import { pendingAuditEntries } from '../../../src/db/audit/log.js'
import { foldRecordIdCounters } from '../../../src/db/records/sequences.js'
import { verifyIntegrity } from '../../../src/db/operations/verify-integrity.js'
import { ADMIN, databaseEnv, REPO_MODULES, startTestApi, VALID, type TestApi } from '../../helpers/api.js'
import { ON_POSTGRES } from '../../helpers/postgres.js'
import { runRecords } from '../../helpers/records-cli.js'
import { captureLogs } from '../protection/support.js'

const CREATES = 60
const clock = () => new Date('2026-05-10T09:00:00Z')

function sharedDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'records-sealed-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

const verify = (api: TestApi) => verifyIntegrity(api.service.database, api.service.spec, api.service.codec)

/** A login entry as a crash between a write's commit and its seal would leave it. */
async function leaveLeftover(api: TestApi, userId: string): Promise<void> {
  await api.service.database.db
    .insertInto('_audit_pending')
    .values({ at: '2026-05-10T11:00:00.000+02:00', user_id: userId, action: 'login', fields: '[]' })
    .execute()
}

t.test('three services create side by side: distinct ids, one verifying chain, nothing pending', async (t) => {
  const dataDir = sharedDir(t)
  const first = await startTestApi(t, { dataDir, clock })
  const apis = [first, await startTestApi(t, { dataDir, clock }), await startTestApi(t, { dataDir, clock })]
  const tokens = await Promise.all(apis.map((api) => api.adminToken()))
  const { db } = first.service.database
  // D38: each create answers only once its entry is chained, though the writers of one service
  // share seals; looked up the moment each answer arrives, while the others are still writing.
  const chainedOnAnswer: boolean[] = []
  const replies = await Promise.all(
    Array.from({ length: CREATES }, async (_, i) => {
      const reply = await apis[i % 3]!.request('POST', '/denuncias', {
        token: tokens[i % 3],
        body: VALID['denuncias']!(),
      })
      const found = await db
        .selectFrom('_audit')
        .select('seq')
        .where('record_id', '=', String(reply.body.data?._id))
        .execute()
      chainedOnAnswer.push(found.length === 1)
      return reply
    }),
  )
  t.same(
    replies.map((r) => r.status),
    Array(CREATES).fill(201),
    'every create answered 201',
  )
  t.same(chainedOnAnswer, Array(CREATES).fill(true), 'every entry was in the chain when its create answered')
  const ids = replies.map((r) => r.body.data._id as string)
  t.equal(new Set(ids).size, CREATES, 'ids distinct')
  for (const id of ids) t.match(id, /^DEN-2026-\d{5}$/)
  const entries = await db
    .selectFrom('_audit')
    .select(['record_id'])
    .where('module', '=', 'denuncias')
    .where('action', '=', 'crear')
    .execute()
  t.same(entries.map((e) => e['record_id']).sort(), [...ids].sort(), "every create's entry exactly once")
  t.equal(await pendingAuditEntries(first.service.database), 0, 'nothing pending')
  t.same((await verify(first)).problems, [], 'the chain and every record verify')
  // Each service answers its own and the others' writes at once (the seal bumped the generation).
  for (const [i, api] of apis.entries())
    t.equal(
      (await api.request('GET', '/denuncias?limit=1', { token: tokens[i] })).body.data.total,
      CREATES,
      `service ${i + 1} lists every create`,
    )
})

t.test('an import larger than one seal, beside creates of another service: all sealed once', async (t) => {
  const dataDir = sharedDir(t)
  const importer = await startTestApi(t, { dataDir, clock })
  const other = await startTestApi(t, { dataDir, clock })
  const token = await other.adminToken()
  const spec = importer.service.spec.moduleByName.get('equipamiento')!
  const values = Array.from({ length: 1500 }, (_, i) => ({ tipo: 'radio', nombre: `Emisora ${i + 1}` }))
  const [imported, replies] = await Promise.all([
    importer.service.store.createMany(spec, values, { actor: 'cli:test', batchSize: 250 }),
    Promise.all(
      Array.from({ length: 20 }, () => other.request('POST', '/denuncias', { token, body: VALID['denuncias']!() })),
    ),
  ])
  t.equal(imported, 1500)
  t.same(
    replies.map((r) => r.status),
    Array(20).fill(201),
  )
  const { db } = importer.service.database
  const count = async (action: string) =>
    Number(
      (
        await db
          .selectFrom('_audit')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('action', '=', action)
          .executeTakeFirst()
      )?.['n'],
    )
  t.equal(await count('importar'), 1500, 'every imported record once')
  t.equal(await count('crear'), 20 + 1, 'every create once (and the admin account of the first start)')
  t.equal(await pendingAuditEntries(importer.service.database), 0, 'nothing pending')
  t.same((await verify(importer)).problems, [], 'the chain and every record verify')
})

t.test(
  'D38: a pending leftover is counted, then sealed by the next seal and at start',
  { skip: ON_POSTGRES ? false : 'SQLite appends to the chain directly: nothing is ever pending' },
  async (t) => {
    const dataDir = sharedDir(t)
    // No heartbeat in the test's time: it would seal the leftovers this test leaves for others.
    const api = await startTestApi(t, { dataDir, clock, env: { INSTANCE_HEARTBEAT_SECONDS: '3600' } })
    const token = await api.adminToken()
    const { database } = api.service
    await leaveLeftover(api, 'crashed-1')
    t.equal(await pendingAuditEntries(database), 1, 'counted while pending')
    const created = await api.create('denuncias', VALID['denuncias']!(), token)
    t.equal(await pendingAuditEntries(database), 0, 'the next write sealed it')
    const tail = await database.db
      .selectFrom('_audit')
      .select(['user_id', 'record_id'])
      .orderBy('seq', 'desc')
      .limit(2)
      .execute()
    t.equal(tail[1]?.['user_id'], 'crashed-1', 'chained before the write that sealed it (pending order)')
    t.equal(tail[0]?.['record_id'], created._id)
    // `records audit verify` counts a leftover, seals it and verifies it with the rest.
    await leaveLeftover(api, 'crashed-2')
    const env = {
      DATA_DIR: dataDir,
      MODULES_FILE: REPO_MODULES,
      ADMIN_USERNAME: ADMIN.username,
      ADMIN_PASSWORD: ADMIN.password,
      RECORDS_ENCRYPTION_KEY: '',
      RECORDS_ENCRYPTION_OLD_KEYS: '',
      ...(await databaseEnv(dataDir)),
    }
    const verified = await runRecords(env, ['audit', 'verify', '--json'])
    t.equal(verified.status, 0, verified.stderr)
    t.match(JSON.parse(verified.stdout), { ok: true, pending: 1, problems: [] })
    t.equal(await pendingAuditEntries(database), 0, 'verify sealed it')
    t.match(JSON.parse((await runRecords(env, ['audit', 'verify', '--json'])).stdout), { ok: true, pending: 0 })
    await leaveLeftover(api, 'crashed-3')
    const again = await startTestApi(t, { dataDir, clock })
    t.equal(await pendingAuditEntries(again.service.database), 0, 'sealed at start')
    const last = await database.db.selectFrom('_audit').select('user_id').orderBy('seq', 'desc').limit(1).execute()
    t.equal(last[0]!['user_id'], 'crashed-3')
    t.same((await verify(again)).problems, [], 'the chain verifies')
  },
)

t.test(
  'D38: a seal that fails after the commit answers the write as done; the heartbeat seals it later',
  { skip: ON_POSTGRES ? false : 'SQLite appends to the chain directly: nothing is ever pending' },
  async (t) => {
    const logs = captureLogs()
    const api = await startTestApi(t, {
      clock,
      env: { INSTANCE_HEARTBEAT_SECONDS: '1' },
      logger: { level: 'info', stream: logs.stream },
    })
    const token = await api.adminToken()
    const { db } = api.service.database
    // Every new chain row refused: the record and its pending entry commit, the seal fails.
    await sql`alter table _audit add constraint sin_sellar check (false) not valid`.execute(db)
    const reply = await api.request('POST', '/denuncias', { token, body: VALID['denuncias']!() })
    t.equal(reply.status, 201, 'the write is done: no error that a retry would turn into a duplicate')
    const id = String(reply.body.data._id)
    t.equal((await db.selectFrom('denuncias').select('_id').where('_id', '=', id).execute()).length, 1)
    t.ok((await pendingAuditEntries(api.service.database)) >= 1, 'its entry waits in _audit_pending')
    t.match(logs.text(), /pendiente de sellar/, 'said in the log, at error')

    await sql`alter table _audit drop constraint sin_sellar`.execute(db)
    const deadline = Date.now() + 10_000
    while ((await pendingAuditEntries(api.service.database)) > 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 200))
    t.equal(await pendingAuditEntries(api.service.database), 0, 'sealed by the heartbeat, with no other write')
    const entry = await db.selectFrom('_audit').select('action').where('record_id', '=', id).execute()
    t.match(entry, [{ action: 'crear' }])
    t.same((await verify(api)).problems, [], 'the chain verifies')
  },
)

t.test('D37: an upgraded database continues after its _sequences value', async (t) => {
  const dataDir = sharedDir(t)
  const api = await startTestApi(t, { dataDir, clock })
  // A database of the version before D37: its counter is the row, no sequence exists yet.
  await api.service.database.db.insertInto('_sequences').values({ prefix: 'DEN', year: 2026, value: 41 }).execute()
  const again = await startTestApi(t, { dataDir, clock })
  t.equal((await again.create('denuncias', VALID['denuncias']!()))._id, 'DEN-2026-00042')
  t.equal((await api.create('denuncias', VALID['denuncias']!()))._id, 'DEN-2026-00043', 'another service continues')
  // What a copy reads (D37): the table raised to what the sequence gave.
  await foldRecordIdCounters(api.service.database)
  const counter = await api.service.database.db
    .selectFrom('_sequences')
    .select('value')
    .where('prefix', '=', 'DEN')
    .where('year', '=', 2026)
    .executeTakeFirst()
  t.equal(Number(counter?.['value']), 43, '_sequences tells the last number given')
})
