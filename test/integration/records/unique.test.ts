// D12: fields marked unique reject a duplicate among live records with 409 naming the field.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { REPO_MODULES, startTestApi, VALID } from '../../helpers/api.js'

const conflictOn = (field: string) => ({
  success: false,
  error: `Ya existe un registro con el mismo valor en '${field}'`,
  details: [{ field, message: `El valor de '${field}' ya está en uso` }],
})

t.test('D12: a duplicate vehiculos.matricula is 409 naming the field', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  const first = await api.create('vehiculos', { ...VALID['vehiculos']!(), matricula: '1234-BCD' })
  const dup = await api.request('POST', '/vehiculos', {
    token,
    body: { ...VALID['vehiculos']!(), matricula: '1234-BCD' },
  })
  t.equal(dup.status, 409)
  t.same(dup.body, conflictOn('matricula'))
  const other = await api.create('vehiculos', { ...VALID['vehiculos']!(), matricula: '5678-FGH' })
  const update = await api.request('PUT', `/vehiculos/${other._id}`, { token, body: { matricula: '1234-BCD' } })
  t.equal(update.status, 409, 'an update to a taken value too')
  t.same(update.body, conflictOn('matricula'))
  const same = await api.request('PUT', `/vehiculos/${first._id}`, {
    token,
    body: { matricula: '1234-BCD', marca: 'Seat' },
  })
  t.equal(same.status, 200, 'a record may keep its own value')
  t.equal(
    (await api.request('GET', '/vehiculos', { token })).body.data.total,
    2,
    'nothing was written by the conflicts',
  )
})

t.test('D12: after the holder is deleted, the value can be used again', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  const first = await api.create('vehiculos', { ...VALID['vehiculos']!(), matricula: '1234-BCD' })
  await api.request('DELETE', `/vehiculos/${first._id}`, { token })
  const again = await api.request('POST', '/vehiculos', {
    token,
    body: { ...VALID['vehiculos']!(), matricula: '1234-BCD' },
  })
  t.equal(again.status, 201)
  const third = await api.request('POST', '/vehiculos', {
    token,
    body: { ...VALID['vehiculos']!(), matricula: '1234-BCD' },
  })
  t.equal(third.status, 409, 'but only once: the new holder is live')
})

t.test('D12: personal.nif is encrypted and unique', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  const first = await api.create('personal', { ...VALID['personal']!(), nif: '12345678Z' })
  t.equal(first.nif, '12345678Z')
  const dup = await api.request('POST', '/personal', { token, body: { ...VALID['personal']!(), nif: '12345678Z' } })
  t.equal(dup.status, 409)
  t.same(dup.body, conflictOn('nif'))
  t.notMatch(JSON.stringify(dup.body), '12345678Z', 'the value is not echoed (D14)')
  t.equal(
    (await api.request('POST', '/personal', { token, body: { ...VALID['personal']!(), nif: '87654321X' } })).status,
    201,
  )
  t.equal(
    (await api.request('POST', '/personal', { token, body: { ...VALID['personal']!(), nif: null } })).status,
    201,
    'several without a nif',
  )
  t.equal((await api.request('POST', '/personal', { token, body: { ...VALID['personal']!() } })).status, 201)
  await api.request('DELETE', `/personal/${first._id}`, { token })
  t.equal(
    (await api.request('POST', '/personal', { token, body: { ...VALID['personal']!(), nif: '12345678Z' } })).status,
    201,
    'reusable after delete',
  )
})

t.test('D12: usuarios.username is unique', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  const body = { username: 'jlopez', password: 'turno-de-noche-123', nombre: 'J. López', rol: 'agente' }
  t.equal((await api.request('POST', '/usuarios', { token, body })).status, 201)
  const dup = await api.request('POST', '/usuarios', { token, body: { ...body, nombre: 'Otro' } })
  t.equal(dup.status, 409)
  t.same(dup.body, conflictOn('username'))
  const admin = await api.request('POST', '/usuarios', { token, body: { ...body, username: 'admin' } })
  t.equal(admin.status, 409, 'the initial superadmin name is taken too')
})

t.test('D12: every unique field of modules.yaml rejects a duplicate', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  const cases: [string, string][] = [
    ['vehiculos', 'bastidor'],
    ['personal', 'tip'],
    ['equipamiento', 'numero_serie'],
  ]
  for (const [module, field] of cases) {
    t.ok(
      api.service.spec.modules.find((m) => m.name === module)?.fieldsByName.get(field)?.def.unique,
      `${module}.${field} is unique in modules.yaml`,
    )
    await api.create(module, { ...VALID[module]!(), [field]: 'VALOR-UNICO-1' })
    const dup = await api.request('POST', `/${module}`, {
      token,
      body: { ...VALID[module]!(), [field]: 'VALOR-UNICO-1' },
    })
    t.equal(dup.status, 409, `${module}.${field}`)
    t.same(dup.body, conflictOn(field))
  }
})

t.test('D12: concurrent creates of one value: exactly one wins', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  const replies = await Promise.all(
    Array.from({ length: 10 }, () =>
      api.request('POST', '/vehiculos', { token, body: { ...VALID['vehiculos']!(), matricula: '0000-ZZZ' } }),
    ),
  )
  t.same(replies.map((r) => r.status).sort(), [201, ...Array(9).fill(409)])
})

// PostgreSQL keeps an identifier's first 63 bytes: it reported this index by a name the service did
// not know, and the duplicate answered 500 where it must answer 409 naming the field.
t.test('D12: a unique field whose index name passes 63 bytes still answers 409 naming it', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'records-long-names-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'modules.yaml')
  const module = 'expedientes_de_la_unidad_de_policia_judicial'
  const field = 'numero_de_registro_de_la_instruccion'
  const declared = `\n  ${module}:\n    prefix: EXP\n    fields:\n      ${field}: { type: string, unique: true }\n`
  writeFileSync(file, readFileSync(REPO_MODULES, 'utf8').replace(/^modules:\n/m, `modules:${declared}`))
  t.ok(Buffer.byteLength(`ux_${module}_${field}`) > 63, 'the index name is longer than PostgreSQL keeps')
  const api = await startTestApi(t, { env: { MODULES_FILE: file } })
  const token = await api.adminToken()
  const body = { [field]: 'PJ-2026-0001' }
  t.equal((await api.request('POST', `/${module}`, { token, body })).status, 201)
  const dup = await api.request('POST', `/${module}`, { token, body })
  t.equal(dup.status, 409)
  t.same(dup.body, conflictOn(field))
})
