// D18: every change and session event is an audit entry chained to the previous one; the
// verification routine reports a clean database as clean and names each tampering done
// directly in SQLite. Entries name fields, never values (D14).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import t, { type Test } from 'tap'
import { verifyIntegrity, type IntegrityProblem } from '../../../src/db/operations/verify-integrity.js'
import { copyTestData, startTestApi, VALID, type TestApi } from '../../helpers/api.js'
import { auditRows, eventually, expectedHash, markerFor, rawRow, tamper } from './support.js'

interface History {
  readonly api: TestApi
  readonly markers: string[]
  readonly ids: Record<string, string>
}

/** Creates, updates, deletes, logins (ok and failed) and a logout, with markers in encrypted fields. */
async function buildHistory(t: Test): Promise<History> {
  const api = await startTestApi(t, { keepDir: true })
  const token = await api.adminToken()
  const spec = api.service.spec.moduleByName.get('denuncias')!
  const markers: string[] = []
  const mark = (name: string) => {
    const value = markerFor(spec.fieldsByName.get(name)!)
    markers.push(value)
    return value
  }
  // Assigned to the agente below: under D26 an agente reads only the denuncias of their scope.
  const kept = await api.create('denuncias', {
    ...VALID['denuncias']!(),
    agente_asignado: 'PER-2026-00011',
    denunciante_dni: mark('denunciante_dni'),
    denunciante_domicilio: mark('denunciante_domicilio'),
  })
  const edited = await api.create('denuncias', {
    ...VALID['denuncias']!(),
    denunciante_telefono: mark('denunciante_telefono'),
  })
  await api.request('PUT', `/denuncias/${edited._id}`, {
    token,
    body: { denunciante_telefono: mark('denunciante_telefono'), descripcion: 'Actualizada' },
  })
  const removed = await api.create('personal', { ...VALID['personal']!(), nif: mark('denunciante_dni') })
  await api.request('DELETE', `/personal/${removed._id}`, { token })
  const agente = await api.userWithRole('agente', { personal_id: 'PER-2026-00011' })
  t.equal(
    (await api.request('POST', '/auth/login', { body: { username: 'agente_1', password: 'no-es-la-clave' } })).status,
    401,
  )
  t.equal(
    (await api.request('POST', '/auth/login', { body: { username: 'nadie', password: 'no-es-la-clave' } })).status,
    401,
  )
  await api.request('GET', `/denuncias/${kept._id}`, { token: agente.token })
  t.equal((await api.request('POST', '/auth/logout', { token: agente.token })).status, 200)
  // Let the buffered read audit land first (its timer, then its writer thread), so that the
  // last entry is the last create.
  const landed = (rows: Record<string, unknown>[]) =>
    rows.some((r) => r['action'] === 'consultar' && r['record_id'] === kept._id)
  t.ok(landed(await eventually(() => auditRows(api), landed)), 'the read audit landed')
  const last = await api.create('sala092', { ...VALID['sala092']!(), numero_llamada: mark('denunciante_dni') })
  return { api, markers, ids: { kept: kept._id, edited: edited._id, removed: removed._id, last: last._id } }
}

// One history is built once and closed; every test opens a fresh service on its own copy.
let template: { dir: string; markers: string[]; ids: Record<string, string> }
t.before(async () => {
  const { api, markers, ids } = await buildHistory(t)
  await api.service.close()
  template = { dir: api.dataDir, markers, ids }
})
t.teardown(() => rmSync(template.dir, { recursive: true, force: true }))

async function busyService(t: Test): Promise<History> {
  const dataDir = mkdtempSync(join(tmpdir(), 'records-chain-'))
  await copyTestData(template.dir, dataDir)
  const api = await startTestApi(t, { dataDir })
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  return { api, markers: template.markers, ids: template.ids }
}

const verify = (api: TestApi) => verifyIntegrity(api.service.database, api.service.spec, api.service.codec)
const kinds = (problems: readonly IntegrityProblem[]) => problems.map((p) => p.kind)

t.test('D18: an untouched database verifies clean and the trail holds every kind of event, names only', async (t) => {
  const { api, markers } = await busyService(t)
  const report = await verify(api)
  t.same(report.problems, [], 'no problems')
  const rows = await auditRows(api)
  t.equal(report.entries, rows.length)
  t.ok(report.records >= 5, 'records were checked')
  const actions = new Set(rows.map((r) => r['action']))
  for (const action of ['crear', 'editar', 'eliminar', 'login', 'login_fallido', 'logout', 'consultar'])
    t.ok(actions.has(action), `an entry for ${action}`)
  t.same(
    rows.map((r) => Number(r['seq'])),
    rows.map((_, i) => i + 1),
    'sequence without gaps from 1',
  )
  for (const [i, row] of rows.entries()) {
    t.equal(
      row['prev_hash'],
      i === 0 ? '0'.repeat(64) : rows[i - 1]!['hash'],
      `entry ${String(row['seq'])} links to the previous one`,
    )
    t.match(String(row['at']), /\.\d{3}/, 'exact time with milliseconds')
  }
  const edit = rows.find((r) => r['action'] === 'editar' && r['module'] === 'denuncias')!
  t.same(
    JSON.parse(String(edit['fields'])).sort(),
    ['denunciante_telefono', 'descripcion'],
    'an edit names the changed fields',
  )
  const text = JSON.stringify(rows)
  for (const marker of markers) t.notOk(text.includes(marker), `no value in _audit (${marker})`)
  t.notOk(text.includes('no-es-la-clave'), 'no password in _audit')
})

t.test('D17/D18: a record row edited in SQLite is named', async (t) => {
  const { api, ids } = await busyService(t)
  t.equal(await tamper(api, sql`update denuncias set lugar_hechos = 'Otro lugar' where _id = ${ids['kept']}`), 1)
  const { problems } = await verify(api)
  t.same(kinds(problems), ['record_hash'], 'one problem')
  t.match(problems[0], { module: 'denuncias', recordId: ids['kept'] })
  t.match(problems[0]?.message, ids['kept']!)
})

t.test('D18: a record edited in SQLite with its _hash recomputed still disagrees with the trail', async (t) => {
  const { api, ids } = await busyService(t)
  const spec = api.service.spec.moduleByName.get('denuncias')!
  const row = { ...(await rawRow(api, 'denuncias', ids['edited']!)), descripcion: 'Reescrita' }
  await tamper(
    api,
    sql`update denuncias set descripcion = 'Reescrita', _hash = ${expectedHash(spec, row)} where _id = ${ids['edited']}`,
  )
  const { problems } = await verify(api)
  t.same(kinds(problems), ['record_mismatch'])
  t.match(problems[0], { module: 'denuncias', recordId: ids['edited'] })
})

t.test('D18: an audit row whose fields were edited in SQLite is named by its seq', async (t) => {
  const { api } = await busyService(t)
  const seq = Number((await auditRows(api)).find((r) => r['action'] === 'editar')!['seq'])
  t.equal(await tamper(api, sql`update _audit set fields = '["observaciones"]' where seq = ${seq}`), 1)
  const { problems } = await verify(api)
  t.same(
    problems.map((p) => [p.kind, p.seq]),
    [['audit_hash', seq]],
  )
  t.match(problems[0]?.message, String(seq))
})

t.test('D18: an audit row edited with its own hash recomputed breaks the next link', async (t) => {
  const { api } = await busyService(t)
  const rows = await auditRows(api)
  const target = rows.find((r) => r['action'] === 'login_fallido')!
  const seq = Number(target['seq'])
  const { hashAuditEntry, auditEntryFromRow } = await import('../../../src/db/audit/log.js')
  const { hash: _old, ...content } = { ...auditEntryFromRow(target), user_id: 'USR-2026-99999' }
  await tamper(
    api,
    sql`update _audit set user_id = 'USR-2026-99999', hash = ${hashAuditEntry(content)} where seq = ${seq}`,
  )
  const { problems } = await verify(api)
  t.same(
    problems.map((p) => [p.kind, p.seq]),
    [['audit_link', seq + 1]],
    'the entry after it no longer links',
  )
})

t.test('D18: an audit row deleted in SQLite leaves a gap that is named', async (t) => {
  const { api } = await busyService(t)
  const rows = await auditRows(api)
  const seq = Number(rows.find((r) => r['action'] === 'logout')!['seq'])
  t.equal(await tamper(api, sql`delete from _audit where seq = ${seq}`), 1)
  const { problems } = await verify(api)
  t.same(kinds(problems).sort(), ['audit_gap', 'audit_link'])
  for (const problem of problems) t.equal(problem.seq, seq + 1, `${problem.kind}: at the entry after the deleted one`)
  const gap = problems.find((p) => p.kind === 'audit_gap')!
  t.match(gap.message, `${seq - 1} y ${seq + 1}`, 'the message brackets the deleted entry')
})

t.test('D18: deleting the last audit entry of a record is named through the record', async (t) => {
  const { api, ids } = await busyService(t)
  const rows = await auditRows(api)
  const tail = rows[rows.length - 1]!
  t.equal(tail['record_id'], ids['last'], 'the tail entry is the last create')
  await tamper(api, sql`delete from _audit where seq = ${Number(tail['seq'])}`)
  const { problems } = await verify(api)
  t.same(kinds(problems), ['record_unaudited'])
  t.match(problems[0], { module: 'sala092', recordId: ids['last'] })
})

t.test('D18: a record row deleted in SQLite is named', async (t) => {
  const { api, ids } = await busyService(t)
  await tamper(api, sql`delete from personal where _id = ${ids['removed']}`)
  const { problems } = await verify(api)
  t.same(kinds(problems), ['record_missing'])
  t.match(problems[0], { module: 'personal', recordId: ids['removed'] })
})

t.test('D18: reordered audit entries are named', async (t) => {
  const { api } = await busyService(t)
  const rows = await auditRows(api)
  const [a, b] = [Number(rows[2]!['seq']), Number(rows[3]!['seq'])]
  await tamper(api, sql`update _audit set seq = -1 where seq = ${a}`)
  await tamper(api, sql`update _audit set seq = ${a} where seq = ${b}`)
  await tamper(api, sql`update _audit set seq = ${b} where seq = -1`)
  const { problems } = await verify(api)
  t.ok(problems.length > 0, 'a swap is detected')
  t.ok(
    problems.every((p) => p.seq === a || p.seq === b || p.seq === b + 1),
    'at the swapped entries',
  )
})
