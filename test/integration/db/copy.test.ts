// `copyDatabase` moves an embedded SQLite installation to PostgreSQL with every
// record, account, audit entry, sequence, revoked token, key and retention decision intact: the target verifies
// clean (D17, D18) and serves the same data; a non-empty target is refused.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { createDatabase } from '../../../src/db/connect.js'
import { copyDatabase } from '../../../src/db/operations/copy.js'
import { createFieldCipher } from '../../../src/db/crypto.js'
import { createRecordCodec } from '../../../src/db/records/codec.js'
import { verifyIntegrity } from '../../../src/db/operations/verify-integrity.js'
import { openRecordKeys } from '../../../src/db/keys/record-keys.js'
import { copyTestData, startTestApi, VALID } from '../../helpers/api.js'
import { createTestDatabase, requirePostgres, urlOf } from '../../helpers/postgres.js'

const reachable = await requirePostgres(t, 'the copy is tested SQLite -> SQLite only')

t.test('a copied installation verifies clean and serves the same data', async (t) => {
  const sourceDir = mkdtempSync(join(tmpdir(), 'records-copy-source-'))
  const targetDir = mkdtempSync(join(tmpdir(), 'records-copy-target-'))
  t.teardown(() => [sourceDir, targetDir].forEach((dir) => rmSync(dir, { recursive: true, force: true })))
  const sourceUrl = `sqlite:${join(sourceDir, 'records.db')}`
  const clock = () => new Date('2026-03-04T10:00:00Z')

  // 1. An embedded installation with history: encrypted values, arrays, decimals, booleans,
  //    an edit, a delete, a second account, a revoked token and audited reads.
  const source = await startTestApi(t, { dataDir: sourceDir, clock, env: { DATABASE_URL: sourceUrl } })
  const token = await source.adminToken()
  const ids: Record<string, string> = {}
  const den = await source.create('denuncias', {
    ...VALID['denuncias']!(),
    denunciante_dni: '12345678Z',
    testigos: [{ nombre: 'Eva', dni: 'X1' }],
  })
  ids['denuncias'] = den._id
  ids['sanciones'] = (await source.create('sanciones', { ...VALID['sanciones']!(), importe: 90.55 }))._id
  ids['atestados'] = (await source.create('atestados', { ...VALID['atestados']!(), imputados: ['A', 'B'] }))._id
  const gone = await source.create('vehiculos', VALID['vehiculos']!())
  t.equal(
    (await source.request('PUT', `/denuncias/${den._id}`, { token, body: { descripcion: 'Editada', testigos: [] } }))
      .status,
    200,
  )
  t.equal((await source.request('DELETE', `/vehiculos/${gone._id}`, { token })).status, 200)
  const agente = await source.userWithRole('agente')
  ids['usuarios'] = agente.id
  await source.request('GET', `/denuncias/${den._id}`, { token: agente.token })
  t.equal((await source.request('POST', '/auth/logout', { token: agente.token })).status, 200)
  // A retention decision (D41): its state travels with the records.
  const review = { decision: 'bloquear', motivo: 'Copia: bloqueo de prueba' }
  t.equal((await source.request('POST', `/retencion/denuncias/${den._id}`, { token, body: review })).status, 200)
  const before: Record<string, unknown> = {}
  for (const [module, id] of Object.entries(ids))
    before[module] = (await source.request('GET', `/${module}/${id}`, { token })).body
  await source.service.close()

  // 2. The copy, into PostgreSQL when it answers.
  const targetUrl = reachable ? urlOf(await createTestDatabase()) : `sqlite:${join(targetDir, 'records.db')}`
  const from = await createDatabase(sourceUrl)
  const to = await createDatabase(targetUrl)
  t.teardown(async () => {
    await from.close()
    await to.close()
  })
  const progress: string[] = []
  const migration = {
    codec: createRecordCodec(to.dialect, createFieldCipher(source.service.keyring)),
    clock: () => new Date(),
    timezone: source.service.spec.service.timezone,
  }
  const files = { sourceDir: source.dataDir, targetDir, cipher: createFieldCipher(source.service.keyring) }
  // The per-record data keys (D41) go to the target's key store, as `records copy` does: first.
  const cipher = createFieldCipher(source.service.keyring)
  const [fromKeys, toKeys] = [
    await openRecordKeys({ database: from, cipher }),
    await openRecordKeys({ database: to, cipher }),
  ]
  t.teardown(async () => {
    await fromKeys.close()
    await toKeys.close()
  })
  const recordKeys = { from: fromKeys, to: toKeys }
  const result = await copyDatabase({
    source: from,
    target: to,
    modules: source.service.spec.modules,
    migration,
    files,
    batchSize: 2,
    recordKeys,
    onProgress: (p) => progress.push(p.table),
  })
  t.equal(result.tables['denuncias'], 1)
  t.equal(result.tables['vehiculos'], 1, 'deleted records too (D10)')
  t.equal(result.tables['usuarios'], 2)
  t.equal(result.tables['_revoked_tokens'], 1)
  t.equal(result.tables['_retention'], 1, 'the retention decision (D41)')
  t.ok((result.tables['_audit'] ?? 0) >= 10, `${result.tables['_audit']} audit entries`)
  t.ok(progress.includes('_audit'), 'progress is reported')
  t.equal(progress[0], '_record_keys', 'the data keys before any record')
  t.ok((result.tables['_record_keys'] ?? 0) > 0)
  t.equal(result.tables['_record_keys'], await fromKeys.count(), 'every data key copied')
  t.equal(await toKeys.count(), await fromKeys.count())
  const codec = createRecordCodec(to.dialect, cipher, undefined, toKeys)
  const report = await verifyIntegrity({ ...to, db: to.db.withPlugin(toKeys.plugin) }, source.service.spec, codec)
  t.same(report.problems, [], 'the target verifies clean: every _hash and the chain intact')
  t.equal(report.entries, result.tables['_audit'])
  await t.rejects(
    copyDatabase({ source: from, target: to, modules: source.service.spec.modules, migration, files }),
    { name: 'OperatorError', code: 'COPY_REFUSED' },
    'a non-empty target is refused',
  )
  await t.rejects(
    copyDatabase({ source: from, target: to, modules: source.service.spec.modules, migration, files }),
    /no está vacía/,
  )
  // A target whose only rows are data keys is not empty either.
  const keysOnlyUrl = reachable ? urlOf(await createTestDatabase()) : `sqlite:${join(targetDir, 'solo-claves.db')}`
  const keysOnly = await createDatabase(keysOnlyUrl)
  const keysOnlyStore = await openRecordKeys({ database: keysOnly, cipher })
  t.teardown(async () => {
    await keysOnlyStore.close()
    await keysOnly.close()
  })
  for await (const rows of fromKeys.exportRows()) await keysOnlyStore.importRows(rows.slice(0, 1))
  await t.rejects(
    copyDatabase({
      source: from,
      target: keysOnly,
      modules: source.service.spec.modules,
      migration,
      files: { ...files, targetDir: join(targetDir, 'vacio') },
      recordKeys: { from: fromKeys, to: keysOnlyStore },
    }),
    { code: 'COPY_REFUSED', message: /almacén de claves de datos/ },
    'a target whose key store holds keys is refused',
  )

  // 3. The service on the target (same secrets) serves the same data and carries on.
  await copyTestData(sourceDir, targetDir)
  const target = await startTestApi(t, { dataDir: targetDir, clock, env: { DATABASE_URL: targetUrl } })
  t.equal(target.service.initialAdmin, undefined, 'no new admin: the accounts came along')
  const admin = await target.adminToken()
  for (const [module, id] of Object.entries(ids))
    t.same(
      (await target.request('GET', `/${module}/${id}`, { token: admin })).body,
      before[module],
      `${module} ${id} served the same`,
    )
  t.equal(
    (await target.request('GET', `/vehiculos/${gone._id}`, { token: admin })).status,
    404,
    'deleted stays deleted',
  )
  t.equal(
    (await target.request('GET', '/me', { token: agente.token })).status,
    401,
    'a revoked token stays revoked (D20)',
  )
  t.match(
    (
      await target.request('POST', `/retencion/denuncias/${den._id}`, {
        token: admin,
        body: { decision: 'desbloquear', motivo: 'Copia: fin de la prueba' },
      })
    ).body.data,
    { blocked_at: null, blocked_by: null },
    'the block came along: it can be lifted on the target (D41)',
  )
  const next = await target.create('denuncias', VALID['denuncias']!())
  t.equal(next._id, 'DEN-2026-00002', 'the sequence continues (D8)')
  const list = await target.request('GET', '/denuncias', { token: admin })
  t.same(
    list.body.data.records.map((r: { _id: string }) => r._id),
    [den._id, next._id],
    'creation order continues (D11)',
  )
  t.same(
    (await verifyIntegrity(target.service.database, target.service.spec, target.service.codec)).problems,
    [],
    'still clean after new writes',
  )
})
