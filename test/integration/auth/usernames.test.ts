// Usernames are canonical: NFC, trimmed, lower case, so look-alike accounts
// cannot coexist; accounts written before are rewritten at startup, and two that collide stop
// the start with a message naming them.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { startTestApi } from '../../helpers/api.js'
import { verifyIntegrity } from '../../../src/db/operations/verify-integrity.js'

const PASSWORD = 'guardia-de-tarde-7'
const account = (username: string) => ({ username, password: PASSWORD, nombre: 'Persona de prueba', rol: 'consulta' })

t.test('composed or decomposed accents, case and spaces name one account', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  const created = await api.request('POST', '/usuarios', { token, body: account('Mar\u00eda') })
  t.equal(created.status, 201)
  t.equal(created.body.data.username, 'mar\u00eda', 'stored in its canonical form')
  for (const lookAlike of ['mari\u0301a', 'MAR\u00cdA', 'mar\u00eda ', ' Mari\u0301a'.normalize('NFD')]) {
    const dup = await api.request('POST', '/usuarios', { token, body: account(lookAlike) })
    t.equal(dup.status, 409, `'${JSON.stringify(lookAlike)}' is the same username`)
  }
  for (const typed of ['MAR\u00cdA', 'mari\u0301a', 'Mar\u00eda  '])
    t.equal(
      (await api.request('POST', '/auth/login', { body: { username: typed, password: PASSWORD } })).status,
      200,
      `login as ${JSON.stringify(typed)}`,
    )
  const other = await api.request('POST', '/usuarios', { token, body: account('otra') })
  const rename = await api.request('PUT', `/usuarios/${other.body.data._id as string}`, {
    token,
    body: { username: 'MARI\u0301A' },
  })
  t.equal(rename.status, 409, 'nor can an update make a look-alike')
})

t.test('accounts written before are made canonical at startup, audited', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'records-usernames-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const first = await startTestApi(t, { dataDir })
  const accounts = first.service.spec.accounts.spec
  // The record store takes any username: the shape of data written by an earlier version.
  const old = await first.service.store.create(accounts, account('Jos\u0065\u0301 '), {
    actor: 'sistema',
    reveal: false,
    user: null,
  })

  const second = await startTestApi(t, { dataDir })
  t.match(second.service.migrated, [/^usuario 'Jose\u0301 ' de USR-\d{4}-\d+ escrito como 'jos\u00e9'$/])
  const token = await second.adminToken()
  t.equal((await second.request('GET', `/usuarios/${String(old['_id'])}`, { token })).body.data.username, 'jos\u00e9')
  t.equal((await second.request('POST', '/auth/login', { body: { username: 'JOSÉ', password: PASSWORD } })).status, 200)
  const report = await verifyIntegrity(second.service.database, second.service.spec, second.service.codec)
  t.same(report.problems, [], 'the rewrite kept the hashes and the audit chain whole')
})

t.test('two existing accounts that collide stop the start, named', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'records-usernames-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const first = await startTestApi(t, { dataDir })
  const accounts = first.service.spec.accounts.spec
  const upper = await first.service.store.create(accounts, account('Ana'), {
    actor: 'sistema',
    reveal: false,
    user: null,
  })
  const lower = await first.service.store.create(accounts, account('ana'), {
    actor: 'sistema',
    reveal: false,
    user: null,
  })

  await t.rejects(startTestApi(t, { dataDir }), {
    message: new RegExp(
      `'Ana' \\(${String(upper['_id'])}\\) y 'ana' \\(${String(lower['_id'])}\\).*records user rename`,
    ),
  })
})
