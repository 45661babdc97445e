// D41: the data keys of an erased record. On SQLite they leave the key database after the
// erasure's commit: when that fails, the erasure stands, the failure is logged at error level naming
// the record, and the sweep (every start, every retention run) destroys them later. The sweep
// destroys only keys of tombstoned ids that no row of the module holds: a key a record in the table
// uses is never destroyed, whatever tombstone names its id.
import Sqlite from 'better-sqlite3'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { ERASED_KEYS_TABLE, recordKeysFile } from '../../../src/db/keys/record-keys.js'
import { ON_POSTGRES, startTestApi, VALID, type TestApi } from '../../helpers/api.js'
import { captureLogs } from '../protection/support.js'

const keyOf = async (api: TestApi, id: string): Promise<string> => {
  const column = api.service.spec.moduleByName.get('denuncias')!.fieldsByName.get('denunciante_dni')!.column
  const row = await api.service.database.db
    .selectFrom('denuncias')
    .select(column)
    .where('_id', '=', id)
    .executeTakeFirstOrThrow()
  return String(row[column]).split('.')[1]!
}

t.test(
  'D41: a key destruction that fails after the erasure is logged, and the next start destroys the key',
  { skip: ON_POSTGRES ? 'PostgreSQL destroys the keys in the erasure transaction' : false },
  async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'records-record-keys-sweep-'))
    t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
    const logs = captureLogs()
    const api = await startTestApi(t, { dataDir, logger: { level: 'error', stream: logs.stream } })
    const token = await api.adminToken()
    const id = (await api.create('denuncias', { ...VALID['denuncias']!(), denunciante_dni: '56565656C' }))._id as string
    const keyId = await keyOf(api, id)
    // Another process holds the key database's write lock past the busy timeout.
    const holder = new Sqlite(recordKeysFile(api.service.database.location))
    t.teardown(() => holder.close())
    holder.exec('begin immediate')
    const erased = await api.request('POST', `/retencion/denuncias/${id}`, {
      token,
      body: { decision: 'suprimir', motivo: 'Plazo cumplido (prueba del barrido)' },
    })
    holder.exec('rollback')
    t.equal(erased.status, 200, 'the erasure stands')
    t.equal((await api.request('GET', `/denuncias/${id}`, { token })).status, 404)
    const failures = logs
      .text()
      .trim()
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((e) => e['record'] === `denuncias:${id}`)
    t.equal(failures.length, 1, 'logged once')
    t.match(failures[0], { level: 50, msg: new RegExp(`denuncias/${id}.*barrido`) })
    t.ok(await api.service.recordKeys.wrappingKeyOf(keyId), 'the key is still there')
    await api.service.close()

    const again = await startTestApi(t, { dataDir })
    t.equal(await again.service.recordKeys.wrappingKeyOf(keyId), undefined, 'the start swept it')
  },
)

t.test('D41: the sweep never destroys a key a record in the table uses', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  const { db } = api.service.database
  const live = (await api.create('denuncias', { ...VALID['denuncias']!(), denunciante_dni: '78787878D' }))._id as string
  const gone = (await api.create('denuncias', { ...VALID['denuncias']!(), denunciante_dni: '90909090E' }))._id as string
  const liveKey = await keyOf(api, live)
  const goneKey = await keyOf(api, gone)
  const tombstone = (recordId: string) => ({
    module: 'denuncias',
    record_id: recordId,
    erased_at: '2026-11-20 10:00:00',
    erased_by: 'sistema',
    motivo: 'prueba',
    basis: 'prueba',
  })
  // A tombstone naming an id a record in the table holds (an id in use again after a restore).
  await db.insertInto('_tombstones').values(tombstone(live)).execute()
  // An erasure whose keys were left behind: the row gone, its tombstone written, and on SQLite the
  // key its values named noted by the erasure (its pooled key's row names no record).
  await db.deleteFrom('_versions').where('module', '=', 'denuncias').where('record_id', '=', gone).execute()
  await db.deleteFrom('denuncias').where('_id', '=', gone).execute()
  await db.insertInto('_tombstones').values(tombstone(gone)).execute()
  if (!ON_POSTGRES)
    await db.insertInto(ERASED_KEYS_TABLE).values({ module: 'denuncias', record_id: gone, key_id: goneKey }).execute()

  t.equal(await api.service.recordKeys.sweep(api.service.spec.modules), 1, 'one key swept')
  t.equal(await api.service.recordKeys.wrappingKeyOf(goneKey), undefined, "the erased record's key is destroyed")
  t.ok(await api.service.recordKeys.wrappingKeyOf(liveKey), 'the record in the table keeps its key')
  t.equal((await api.request('GET', `/denuncias/${live}`, { token })).body.data.denunciante_dni, '78787878D')
  t.equal(await api.service.recordKeys.sweep(api.service.spec.modules), 0, 'nothing twice')
})
