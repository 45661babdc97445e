// References between modules (issue #16 item 4, D31): a `ref` field holds the id of a live
// record of its target module, checked on every write; `?expand=` embeds the target as the
// caller would read it there; a referenced record cannot be deleted unless the field says
// `on_delete: allow`; a field that becomes a reference over unresolved data is refused.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { REPO_MODULES, startTestApi, VALID, type TestApi } from '../../helpers/api.js'

const SHIPPED = readFileSync(REPO_MODULES, 'utf8')

/**
 * The shipped modules with two changes for the tests: oficial sees only active staff and not
 * their e-mail (a scope and a field rule on the target module); sanciones.agente_denunciante
 * lets its target be deleted.
 */
const TEST_MODULES = SHIPPED.replace(
  '      final: [jubilado]\n',
  '      final: [jubilado]\n' +
    '    access:\n      oficial:\n        scope: { situacion: activo }\n        cannot_read: [contacto_email]\n',
).replace(
  'agente_denunciante: { type: ref, module: personal,',
  'agente_denunciante: { type: ref, module: personal, on_delete: allow,',
)

async function start(t: Test, modules = TEST_MODULES): Promise<{ api: TestApi; token: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'records-refs-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'modules.yaml')
  writeFileSync(file, modules)
  const api = await startTestApi(t, { env: { MODULES_FILE: file } })
  return { api, token: await api.adminToken() }
}

let nifs = 0
async function person(api: TestApi, extra: Record<string, unknown> = {}): Promise<any> {
  nifs += 1
  return api.create('personal', {
    ...VALID['personal']!(),
    nif: `${String(nifs).padStart(8, '0')}Z`,
    contacto_email: 'agente@example.org',
    ...extra,
  })
}

t.test('#16: the test modules differ from the shipped ones as intended', async (t) => {
  t.not(TEST_MODULES, SHIPPED)
  t.match(TEST_MODULES, 'on_delete: allow')
  t.match(TEST_MODULES, 'scope: { situacion: activo }')
})

t.test('#16: a write naming a missing or deleted target is 400 naming the field; nothing is written', async (t) => {
  const { api, token } = await start(t)
  const gone = await person(api)
  t.equal((await api.request('DELETE', `/personal/${gone._id}`, { token })).status, 200)
  for (const id of ['PER-2026-99999', gone._id]) {
    const create = await api.request('POST', '/denuncias', {
      token,
      body: { ...VALID['denuncias']!(), agente_asignado: id },
    })
    t.equal(create.status, 400, `create with ${id}`)
    t.match(create.body, {
      success: false,
      error: /^Datos inválidos: /,
      details: [
        { field: 'agente_asignado', message: `'agente_asignado' no es el id de un registro vivo de personal: '${id}'` },
      ],
    })
  }
  t.equal((await api.request('GET', '/denuncias', { token })).body.data.total, 0, 'no denuncia was created')
  const live = await person(api)
  const denuncia = await api.create('denuncias', { ...VALID['denuncias']!(), agente_asignado: live._id })
  const update = await api.request('PUT', `/denuncias/${denuncia._id}`, {
    token,
    body: { agente_asignado: gone._id },
  })
  t.equal(update.status, 400)
  t.equal(update.body.details[0].field, 'agente_asignado')
  const wrongModule = await api.request('POST', '/turnos', {
    token,
    body: { ...VALID['turnos']!(), agente_id: live._id, vehiculo_asignado: live._id },
  })
  t.equal(wrongModule.status, 400, "a personal id is not a vehiculo's (the id pattern names the prefix)")
  t.equal(wrongModule.body.details[0].field, 'vehiculo_asignado')
  const kept = await api.request('GET', `/denuncias/${denuncia._id}`, { token })
  t.equal(kept.body.data.agente_asignado, live._id, 'the failed update changed nothing')
  t.equal(kept.body.data._version, 1)
})

t.test('#16: an account names its staff record: personal_id must exist too', async (t) => {
  const { api, token } = await start(t)
  const reply = await api.request('POST', '/usuarios', {
    token,
    body: {
      username: 'nadie',
      password: 'una-clave-larga-9',
      nombre: 'Nadie',
      rol: 'agente',
      personal_id: 'PER-2026-99999',
    },
  })
  t.equal(reply.status, 400)
  t.equal(reply.body.details[0].field, 'personal_id')
})

t.test('#16: expand embeds a visible target under its scope, field rules and masking; others stay ids', async (t) => {
  const { api, token } = await start(t)
  const active = await person(api)
  const retired = await person(api, { situacion: 'activo' })
  await api.request('PUT', `/personal/${retired._id}`, { token, body: { situacion: 'jubilado' } })
  const seen = await api.create('denuncias', { ...VALID['denuncias']!(), agente_asignado: active._id })
  const hidden = await api.create('denuncias', { ...VALID['denuncias']!(), agente_asignado: retired._id })
  const none = await api.create('denuncias', VALID['denuncias']!())

  // The superadmin: every target, decrypted.
  const admin = await api.request('GET', `/denuncias/${seen._id}?expand=agente_asignado`, { token })
  t.equal(admin.status, 200)
  t.match(admin.body.data.agente_asignado, { _id: active._id, nif: active.nif, contacto_email: 'agente@example.org' })

  // An oficial: personal.ver without descifrar, scoped to active staff, no e-mail.
  const oficial = await api.userWithRole('oficial')
  const list = await api.request('GET', '/denuncias?expand=agente_asignado&sort=_created', { token: oficial.token })
  t.equal(list.status, 200)
  const byId = new Map(list.body.data.records.map((r: any) => [r._id, r.agente_asignado]))
  const embedded = byId.get(seen._id) as any
  t.equal(embedded._id, active._id, 'a target in scope is embedded')
  t.equal(embedded.nif, '***', 'masked without personal.descifrar')
  t.notOk('contacto_email' in embedded, 'a field the role cannot read is absent')
  t.equal(byId.get(hidden._id), retired._id, 'a target out of the scope stays its id')
  t.equal(byId.get(none._id), null, 'no reference stays null')

  // An agente holds no personal.ver: the reference stays an id.
  const agente = await api.userWithRole('agente')
  const own = await api.create('denuncias', { ...VALID['denuncias']!(), agente_asignado: active._id })
  const reassigned = await api.request('GET', `/denuncias/${own._id}?expand=agente_asignado`, {
    token: (await api.userWithRole('oficial')).token,
  })
  t.equal(reassigned.body.data.agente_asignado._id, active._id)
  const mine = await api.create('denuncias', VALID['denuncias']!(), agente.token)
  const plain = await api.request('GET', `/denuncias/${mine._id}?expand=agente_asignado`, { token: agente.token })
  t.equal(plain.status, 200)
  t.equal(plain.body.data.agente_asignado, null)

  for (const bad of ['tipo', 'nada', 'agente_asignado,estado']) {
    const reply = await api.request('GET', `/denuncias?expand=${bad}`, { token })
    t.equal(reply.status, 400, `expand=${bad}`)
    t.equal(reply.body.details[0].field, 'expand')
  }
})

t.test('#16: expanding a target reads it: a decrypting read is audited as consultar of the target', async (t) => {
  const { api, token } = await start(t)
  const staff = await person(api)
  const denuncia = await api.create('denuncias', { ...VALID['denuncias']!(), agente_asignado: staff._id })
  await api.request('GET', `/denuncias/${denuncia._id}?expand=agente_asignado`, { token })
  // The read audit is buffered: wait for it to land.
  let total = 0
  for (let i = 0; i < 300 && total === 0; i++) {
    const trail = await api.request('GET', `/auditoria?registro=${staff._id}&accion=consultar`, { token })
    total = trail.body.data.total as number
    if (total === 0) await new Promise((resolve) => setTimeout(resolve, 100))
  }
  t.equal(total, 1, 'a consultar entry names the embedded personal record')
})

t.test('#16: expand on a page of 100 embeds every target (one query per field, for the page)', async (t) => {
  const { api, token } = await start(t)
  const staff: string[] = []
  for (let i = 0; i < 5; i++) staff.push((await person(api))._id)
  const vehicle = (await api.create('vehiculos', VALID['vehiculos']!()))._id
  for (let i = 0; i < 100; i++)
    await api.create('turnos', {
      ...VALID['turnos']!(),
      agente_id: staff[i % 5],
      compañero: i % 2 === 0 ? staff[(i + 1) % 5] : null,
      vehiculo_asignado: i % 3 === 0 ? vehicle : null,
    })
  const reply = await api.request('GET', '/turnos?limit=100&expand=agente_id,compañero,vehiculo_asignado', { token })
  t.equal(reply.status, 200)
  const records = reply.body.data.records as any[]
  t.equal(records.length, 100)
  t.ok(
    records.every((r, i) => r.agente_id._id === staff[i % 5]),
    'each agente_id is its own personal record',
  )
  t.ok(records.every((r, i) => (i % 2 === 0 ? r.compañero._id === staff[(i + 1) % 5] : r.compañero === null)))
  t.ok(records.every((r, i) => (i % 3 === 0 ? r.vehiculo_asignado._id === vehicle : r.vehiculo_asignado === null)))
  t.equal(records[0].agente_id.tip, (await api.request('GET', `/personal/${staff[0]}`, { token })).body.data.tip)
})

t.test('#16: deleting a referenced record is 409 naming who references it; on_delete: allow lets it go', async (t) => {
  const { api, token } = await start(t)
  const staff = await person(api)
  const denuncias = []
  for (let i = 0; i < 7; i++)
    denuncias.push((await api.create('denuncias', { ...VALID['denuncias']!(), agente_asignado: staff._id }))._id)
  const turno = await api.create('turnos', { ...VALID['turnos']!(), agente_id: staff._id })
  const refused = await api.request('DELETE', `/personal/${staff._id}`, { token })
  t.equal(refused.status, 409)
  t.same(refused.body, {
    success: false,
    error: 'El registro está referenciado por otros registros y no se puede eliminar',
    details: [
      {
        field: 'denuncias.agente_asignado',
        message: `Lo referencian ${denuncias.slice(0, 5).join(', ')} y otros (denuncias.agente_asignado)`,
      },
      { field: 'turnos.agente_id', message: `Lo referencia ${turno._id} (turnos.agente_id)` },
    ],
  })
  t.equal((await api.request('GET', `/personal/${staff._id}`, { token })).status, 200, 'still there')
  // Deleted referrers no longer count.
  for (const id of [...denuncias, turno._id])
    await api.request('DELETE', `/${id.startsWith('DEN') ? 'denuncias' : 'turnos'}/${id}`, { token })
  // sanciones.agente_denunciante says on_delete: allow.
  const sancion = await api.create('sanciones', { ...VALID['sanciones']!(), agente_denunciante: staff._id })
  t.equal((await api.request('DELETE', `/personal/${staff._id}`, { token })).status, 200, 'allowed')
  const after = await api.request('GET', `/sanciones/${sancion._id}?expand=agente_denunciante`, { token })
  t.equal(after.body.data.agente_denunciante, staff._id, 'a deleted target stays its id')
  const resend = await api.request('PUT', `/sanciones/${sancion._id}`, {
    token,
    body: { agente_denunciante: staff._id, lugar_infraccion: 'Otra calle' },
  })
  t.equal(resend.status, 200, 'a reference sent back unchanged is not looked up again')
})

t.test('#16: a field that becomes a reference over unresolved data is refused, naming the records', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'records-refs-migrate-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const file = join(dataDir, 'modules-before.yaml')
  writeFileSync(
    file,
    SHIPPED.replace(
      '      asignado_a: { type: ref, module: personal, index: true }',
      '      asignado_a: { type: string, index: true }',
    ),
  )
  t.not(readFileSync(file, 'utf8'), SHIPPED, 'equipamiento.asignado_a was a string before')
  const before = await startTestApi(t, { dataDir, keepDir: true, env: { MODULES_FILE: file } })
  const dangling = await before.create('equipamiento', { ...VALID['equipamiento']!(), asignado_a: 'PER-2026-77777' })
  await before.create('equipamiento', VALID['equipamiento']!())
  await before.service.close()
  await t.rejects(startTestApi(t, { dataDir, keepDir: true }), {
    code: 'MIGRATION_REFUSED',
    message: new RegExp(
      `Hacer de 'equipamiento.asignado_a' una referencia a 'personal'.*1 registros afectados \\(${dangling._id}\\)`,
    ),
  })
})

t.test('#16: records validate rejects a reference to an unknown module at its line', async (t) => {
  const { validateModulesSource } = await import('../../../src/config/validate.js')
  const text = SHIPPED.replace(
    'vehiculo_asignado: { type: ref, module: vehiculos }',
    'vehiculo_asignado: { type: ref, module: vehiculo }',
  )
  const result = validateModulesSource(text, 'modules.yaml')
  t.equal(result.ok, false)
  const line = text.split('\n').findIndex((l) => l.includes('module: vehiculo }')) + 1
  t.match(!result.ok && result.problems, [
    { line, message: "turnos.vehiculo_asignado: 'module' nombra un módulo que no existe: 'vehiculo'." },
  ])
  const missing = validateModulesSource(
    SHIPPED.replace('vehiculo_asignado: { type: ref, module: vehiculos }', 'vehiculo_asignado: { type: ref }'),
    'm.yaml',
  )
  t.match(!missing.ok && missing.problems, [{ message: /necesita 'module'/ }])
  const stray = validateModulesSource(
    SHIPPED.replace('marca: { type: string }', 'marca: { type: string, module: personal }'),
    'm.yaml',
  )
  t.match(!stray.ok && stray.problems, [{ message: /'module' solo se admite en campos de tipo ref/ }])
})
