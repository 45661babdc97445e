// The command line and need to know: `records export --as <usuario>` exports what that
// user sees through the API; `records import` may keep historical states, audited as 'importar'.
import t from 'tap'
import { VALID } from '../../helpers/api.js'
import type { OpenService } from '../../../src/app/service.js'
import { api, createCli, DISCLOSURE } from './support.js'

/** Staff records PER-…-00001 to 00012: the accounts and denuncias below reference 00011 and 00012. */
async function seedStaff(service: OpenService, token: string): Promise<void> {
  for (let i = 0; i < 12; i++) await api(service, token, 'POST', '/personal', VALID['personal']!())
}

t.test("export --as applies the user's scope and field rules; without --as the operator exports all", async (t) => {
  const cli = createCli(t)
  const ids = await cli.withService(async (service, token) => {
    await seedStaff(service, token)
    const user = async (username: string, rol: string, extra: Record<string, unknown> = {}) =>
      api(service, token, 'POST', '/usuarios', {
        username,
        password: 'agente-de-prueba-1',
        nombre: username,
        rol,
        ...extra,
      })
    await user('agente_a', 'agente', { personal_id: 'PER-2026-00011' })
    await user('consulta_a', 'consulta')
    const mine = await api(service, token, 'POST', '/denuncias', {
      ...VALID['denuncias']!(),
      agente_asignado: 'PER-2026-00011',
      observaciones: 'interna',
    })
    const theirs = await api(service, token, 'POST', '/denuncias', {
      ...VALID['denuncias']!(),
      agente_asignado: 'PER-2026-00012',
    })
    return [mine.body.data._id as string, theirs.body.data._id as string]
  })
  const lines = (stdout: string) =>
    stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
  const agente = await cli.run(['export', ...DISCLOSURE, 'denuncias', '--format', 'jsonl', '--as', 'agente_a'])
  t.equal(agente.status, 0, agente.stderr)
  t.same(
    lines(agente.stdout).map((r) => r['_id']),
    [ids[0]],
    "only the denuncia in the agente's scope",
  )
  const consulta = await cli.run(['export', ...DISCLOSURE, 'denuncias', '--format', 'jsonl', '--as', 'consulta_a'])
  t.equal(lines(consulta.stdout).length, 2)
  t.notOk(
    lines(consulta.stdout).some((r) => 'observaciones' in r),
    'consulta does not read observaciones',
  )
  const csv = await cli.run(['export', ...DISCLOSURE, 'denuncias', '--as', 'consulta_a'])
  t.notOk(csv.stdout.split('\n')[0]?.includes('observaciones'), 'nor as a CSV column')
  const all = await cli.run(['export', ...DISCLOSURE, 'denuncias', '--format', 'jsonl'])
  t.equal(lines(all.stdout).length, 2)
  const unknown = await cli.run(['export', ...DISCLOSURE, 'denuncias', '--as', 'nadie'])
  t.not(unknown.status, 0)
  t.match(unknown.stderr, /No hay un usuario activo 'nadie'/)
})

t.test('records import keeps a historical state the API would refuse, audited as importar', async (t) => {
  const cli = createCli(t)
  const row = {
    ...VALID['sanciones']!(),
    estado: 'cobrada',
    fecha_notificacion: '2025-01-10',
    fecha_pago: '2025-02-01',
  }
  const run = await cli.run(['import', 'sanciones', '-', '--format', 'jsonl'], { input: `${JSON.stringify(row)}\n` })
  t.equal(run.status, 0, run.stderr)
  t.same(
    cli.raw((db) => db.prepare('select estado from sanciones').all()),
    [{ estado: 'cobrada' }],
  )
  t.same(
    cli.raw((db) => db.prepare("select action from _audit where module = 'sanciones'").all()),
    [{ action: 'importar' }],
  )
})

t.test('records explain prints what a user may do in a module and on one record, and which rule decides', async (t) => {
  const cli = createCli(t)
  const [mine, theirs] = await cli.withService(async (service, token) => {
    await seedStaff(service, token)
    await api(service, token, 'POST', '/usuarios', {
      username: 'agente_a',
      password: 'agente-de-prueba-1',
      nombre: 'A',
      rol: 'agente',
      personal_id: 'PER-2026-00011',
    })
    const a = await api(service, token, 'POST', '/denuncias', {
      ...VALID['denuncias']!(),
      agente_asignado: 'PER-2026-00011',
    })
    const b = await api(service, token, 'POST', '/denuncias', {
      ...VALID['denuncias']!(),
      agente_asignado: 'PER-2026-00012',
    })
    return [a.body.data._id as string, b.body.data._id as string]
  })
  const module = await cli.run(['explain', 'agente_a', 'denuncias'])
  t.equal(module.status, 0, module.stderr)
  t.match(module.stdout, 'rol agente, personal_id PER-2026-00011')
  t.match(
    module.stdout,
    'Permisos: denuncias.ver, denuncias.crear, denuncias.editar, denuncias.descifrar; sin eliminar',
  )
  t.match(
    module.stdout,
    'access.agente.scope: (agente_asignado = $user.personal_id (PER-2026-00011) o _created_by = $user.id (USR-',
  )
  t.match(module.stdout, 'Campos que no escribe (cannot_write): agente_asignado')
  t.match(module.stdout, 'archivada -> (ninguno para este rol)')
  const inside = await cli.run(['explain', 'agente_a', 'denuncias', mine ?? ''])
  t.match(inside.stdout, 'agente_asignado = $user.personal_id (PER-2026-00011) [cumple]')
  t.match(inside.stdout, 'estado = pendiente; puede pasar a: investigacion, archivada')
  const outside = await cli.run(['explain', 'agente_a', 'denuncias', theirs ?? ''])
  t.match(outside.stdout, 'Fuera de su ámbito: GET, PUT, DELETE e historial responden 404')
  t.notMatch(outside.stdout, 'PER-2026-00012', 'no value of the record is printed')
})
