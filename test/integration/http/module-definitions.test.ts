// D47: GET /me/modulos/{modulo}/explicacion, a module's definitions read-only: the lines of
// `records explain` for a user (the caller by default) and the module as the caller sees it, for
// the roles that read the accounts. 403 without that permission, 404 for an unknown module or user.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { explainModule } from '../../../src/records/explain.js'
import { REPO_MODULES, startTestApi } from '../../helpers/api.js'
import { eventually } from '../protection/support.js'

t.test('D47: what a user may do in a module, rule by rule, for whoever reads the accounts', async (t) => {
  const api = await startTestApi(t)
  const admin = await api.adminToken()
  const person = (await api.create('personal', { tip: 'TIP-47', nombre: 'Eva', apellidos: 'Gil', escala: 'oficial' }))
    ._id as string
  const agente = await api.userWithRole('agente', { personal_id: person })
  const administrador = await api.userWithRole('administrador')
  const consulta = await api.userWithRole('consulta')
  const explain = (token: string, path: string) => api.request('GET', `/me/modulos/${path}`, { token })

  const reply = await explain(admin, `denuncias/explicacion?usuario=${agente.id}`)
  t.equal(reply.status, 200)
  const { spec } = api.service
  const denuncias = spec.moduleByName.get('denuncias')!
  t.same(
    reply.body.data.explicacion,
    explainModule(denuncias, spec.roles.get('agente')!, {
      id: agente.id,
      role: 'agente',
      fields: { personal_id: person },
    }),
    'the lines records explain prints',
  )
  t.match(reply.body.data, {
    modulo: 'denuncias',
    usuario: agente.id,
    explicacion: [
      'Módulo denuncias, rol agente',
      /Permisos: denuncias.ver, denuncias.crear, denuncias.editar, denuncias.descifrar/,
      new RegExp(`agente_asignado = \\$user.personal_id \\(${person}\\)`),
      /cannot_read\): ninguno/,
      /cannot_write\): agente_asignado/,
    ],
  })
  const mine = (await api.request('GET', '/me/modulos', { token: admin })).body.data.find(
    (m: any) => m.nombre === 'denuncias',
  )
  t.same(reply.body.data.definicion, mine, "the definition as the caller's GET /me/modulos gives it")

  const self = await explain(administrador.token, 'personal/explicacion')
  t.equal(self.status, 200, 'an administrador reads the accounts')
  t.match(self.body.data, {
    usuario: administrador.id,
    definicion: { nombre: 'personal' },
  })
  t.match(self.body.data.explicacion[0], 'Módulo personal, rol administrador', 'without usuario: the caller')

  const refused = await explain(consulta.token, `denuncias/explicacion?usuario=${consulta.id}`)
  t.match(
    refused,
    { status: 403, body: { success: false, details: [{ field: 'permiso' }] } },
    'not without usuarios.ver',
  )
  t.equal((await explain(agente.token, 'denuncias/explicacion')).status, 403, 'not even about oneself')
  t.equal((await api.request('GET', '/me/modulos/denuncias/explicacion')).status, 401)
  t.match(await explain(admin, 'objetos/explicacion'), { status: 404, body: { success: false } }, 'unknown module')
  t.match(
    await explain(admin, 'denuncias/explicacion?usuario=USR-2026-99999'),
    { status: 404, body: { error: 'Registro no encontrado' } },
    'unknown user',
  )
  t.equal(
    (await explain(admin, `denuncias/explicacion?usuario=${agente.id}&usuario=${consulta.id}`)).status,
    400,
    'one user at a time',
  )
})

t.test(
  'D47: another person is read as GET /usuarios/{id} reads them: logged, in scope, for modules the caller lists',
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'records-d47-'))
    t.teardown(() => rmSync(dir, { recursive: true, force: true }))
    const file = join(dir, 'modules.yaml')
    const shipped = readFileSync(REPO_MODULES, 'utf8')
    const dpd = '  dpd:\n'
    t.ok(shipped.includes(dpd), 'the shipped dpd role, as this test changes it')
    const at = shipped.indexOf('    permissions:\n', shipped.indexOf(dpd)) + '    permissions:\n'.length
    writeFileSync(file, `${shipped.slice(0, at)}      - usuarios.ver\n${shipped.slice(at)}`)
    const api = await startTestApi(t, { env: { MODULES_FILE: file } })
    const admin = await api.adminToken()
    const agente = await api.userWithRole('agente')
    const reader = await api.userWithRole('dpd')
    const explain = (token: string, path: string) => api.request('GET', `/me/modulos/${path}`, { token })

    t.equal((await explain(admin, `denuncias/explicacion?usuario=${agente.id}`)).status, 200)
    const logged = await eventually(
      () => api.request('GET', `/auditoria?modulo=usuarios&accion=consultar&registro=${agente.id}`, { token: admin }),
      (reply) => reply.body.data.total > 0,
    )
    t.ok(logged.body.data.total > 0, 'explaining another account is a logged consultation of it, as its GET is')

    const refused = await explain(reader.token, `denuncias/explicacion?usuario=${agente.id}`)
    t.match(
      refused,
      { status: 403, body: { success: false, details: [{ field: 'permiso', message: /denuncias\.ver/ }] } },
      'a module the caller may not list is not explained to it, usuarios.ver or not',
    )
    t.equal((await explain(reader.token, `retencion/explicacion`)).status, 404, 'retencion is no module')
  },
)
