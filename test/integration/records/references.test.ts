// References between modules (D35): a `ref` field holds the id of a live
// record of its target module, checked on every write; a referenced record cannot be deleted
// unless the field says `on_delete: allow`; a field that becomes a reference over unresolved
// data is refused; validate rejects an unknown target.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { startTestApi, VALID } from '../../helpers/api.js'
import { person, SHIPPED, start, TEST_MODULES } from './references-support.js'

t.test('the test modules differ from the shipped ones as intended', async (t) => {
  t.not(TEST_MODULES, SHIPPED)
  t.match(TEST_MODULES, 'on_delete: allow')
  t.match(TEST_MODULES, 'scope: { situacion: activo }')
})

t.test('a write naming a missing or deleted target is 400 naming the field; nothing is written', async (t) => {
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

t.test('an account names its staff record: personal_id must exist too', async (t) => {
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

t.test('deleting a referenced record is 409 naming who references it; on_delete: allow lets it go', async (t) => {
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

t.test('a field that becomes a reference over unresolved data is refused, naming the records', async (t) => {
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

t.test('records validate rejects a reference to an unknown module at its line', async (t) => {
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
