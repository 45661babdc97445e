// GET /me/modulos (D46): each role's view of the modules, read from the rules the API enforces
// (permissions, cannot_read/cannot_write, workflow moves per role, motivo_requerido); what the
// console builds its screens from. A module added to modules.yaml is in it with no code.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { REPO_MODULES, startTestApi, type TestApi } from '../../helpers/api.js'

const views = async (t: Test, api: TestApi, token: string) => {
  const reply = await api.request('GET', '/me/modulos', { token })
  t.equal(reply.status, 200)
  return new Map<string, any>(reply.body.data.map((m: any) => [m.nombre, m]))
}
const field = (view: any, name: string) => view.campos.find((c: any) => c.nombre === name)

t.test('each role sees the modules it may list, with its field rules and moves', async (t) => {
  const api = await startTestApi(t)
  const agente = await api.userWithRole('agente')
  const consulta = await api.userWithRole('consulta')
  const oficial = await api.userWithRole('oficial')

  const seen = await views(t, api, agente.token)
  t.same(
    [...seen.keys()].sort(),
    ['atestados', 'denuncias', 'equipamiento', 'sala092', 'sanciones', 'turnos', 'vehiculos'],
    'the modules whose ver the agente holds, no others',
  )
  const denuncias = seen.get('denuncias')
  t.same(denuncias.acciones, ['ver', 'crear', 'editar', 'descifrar'])
  t.equal(denuncias.busqueda, true, 'denuncias has searchable fields')
  t.match(field(denuncias, 'agente_asignado'), { lee: true, escribe: false, tipo: 'ref', modulo: 'personal' })
  t.match(field(denuncias, 'observaciones'), { lee: true, escribe: true })
  t.match(field(denuncias, 'prioridad'), { valores: ['baja', 'media', 'alta', 'urgente'] })
  t.match(field(denuncias, 'pruebas'), { tipo: 'file', escribe: false }, 'files go by their upload route')
  t.same(denuncias.workflow.movimientos.pendiente, [
    { a: 'investigacion', requiere: [] },
    { a: 'archivada', requiere: [] },
  ])
  t.same(denuncias.workflow.movimientos.archivada, [], 'reopening is for jefe and above')
  t.same(denuncias.workflow.finales, ['judicializada'])
  t.same(seen.get('sanciones').acciones, ['ver', 'crear', 'descifrar'], 'no editar for the agente')
  t.same(seen.get('sanciones').workflow.movimientos.borrador, [], 'a move is an edit: none without editar')

  const forConsulta = await views(t, api, consulta.token)
  t.match(field(forConsulta.get('denuncias'), 'observaciones'), { lee: false }, 'consulta does not read the notes')
  t.same(forConsulta.get('denuncias').workflow.movimientos.pendiente, [], 'consulta edits nothing: no moves')

  const forOficial = await views(t, api, oficial.token)
  t.same(forOficial.get('personal').motivo, ['consultar'], 'the oficial says why it reads personal')
  t.same(forOficial.get('sanciones').workflow.movimientos.borrador[0], {
    a: 'notificada',
    requiere: ['fecha_notificacion'],
  })
  t.same(seen.get('denuncias').motivo, [])

  const forAdmin = await views(t, api, await api.adminToken())
  t.match(field(forAdmin.get('usuarios'), 'password'), { lee: false, escribe: true, tipo: 'password' })
  t.same(forAdmin.get('denuncias').workflow.movimientos.archivada, [{ a: 'investigacion', requiere: [] }])

  const anonymous = await api.request('GET', '/me/modulos')
  t.equal(anonymous.status, 401, 'a token is needed')
})

t.test('a module added to modules.yaml is in the view with no code', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'records-module-views-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'modules.yaml')
  const extra = `
  objetos_perdidos:
    prefix: OBP
    description: Objetos perdidos
    fields:
      descripcion: { type: text, required: true, searchable: true }
      categoria: { type: string, enum: [documentacion, llaves, otros] }
`
  writeFileSync(file, `${readFileSync(REPO_MODULES, 'utf8').trimEnd()}\n${extra}`)
  const api = await startTestApi(t, { env: { MODULES_FILE: file } })
  const view = (await views(t, api, await api.adminToken())).get('objetos_perdidos')
  t.match(view, {
    descripcion: 'Objetos perdidos',
    prefijo: 'OBP',
    acciones: ['ver', 'crear', 'editar', 'eliminar', 'descifrar'],
    busqueda: true,
  })
  t.same(
    view.campos.map((c: any) => c.nombre),
    ['descripcion', 'categoria'],
  )
  t.notOk('workflow' in view, 'no state field, no workflow')
})
