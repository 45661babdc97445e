// D47: GET /me/modulos/{modulo}/explicacion, a module's definitions read-only: the lines of
// `records explain` for a user (the caller by default) and the module as the caller sees it, for
// the roles that read the accounts. 403 without that permission, 404 for an unknown module or user.
import t from 'tap'
import { explainModule } from '../../../src/records/explain.js'
import { startTestApi } from '../../helpers/api.js'

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
