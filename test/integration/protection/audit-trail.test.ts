// D25: GET /auditoria (auditoria.ver: superadmin and administrador) with limit/offset and the
// filters modulo, registro, usuario, accion; GET /{module}/{id}/historial ({module}.ver),
// deleted records included. Entries carry field names, never values (D14, D18); the history adds
// each write's values from the kept versions, under masking (D33).
import t from 'tap'
import { startTestApi, VALID } from '../../helpers/api.js'
import { consultationsWritten, FORBIDDEN, markerFor, ROLES, type RoleName } from './support.js'

const AUDITORS: readonly RoleName[] = ['superadmin', 'administrador']
const ENTRY_KEYS = [
  'action',
  'address',
  'at',
  'criteria',
  'fields',
  'hash',
  'module',
  'motivo',
  'prev_hash',
  'recipient',
  'record_hash',
  'record_id',
  'record_ids',
  'request_id',
  'seq',
  'user_id',
  'version',
]

t.test('D25: GET /auditoria needs auditoria.ver, held by superadmin and administrador only', async (t) => {
  const api = await startTestApi(t)
  t.equal((await api.request('GET', '/auditoria')).status, 401, 'no token: 401')
  for (const role of ROLES) {
    const { token } = await api.userWithRole(role)
    const reply = await api.request('GET', '/auditoria', { token })
    if (AUDITORS.includes(role)) t.equal(reply.status, 200, `${role}: 200`)
    else
      t.same(
        [reply.status, reply.body],
        [
          403,
          {
            success: false,
            error: FORBIDDEN,
            details: [{ field: 'permiso', message: `El rol '${role}' no tiene el permiso 'auditoria.ver'` }],
          },
        ],
        `${role}: 403 naming the permission`,
      )
  }
})

t.test('D25: the trail pages with limit/offset and filters by modulo, registro, usuario and accion', async (t) => {
  const api = await startTestApi(t)
  const admin = await api.adminToken()
  const agente = await api.userWithRole('agente')
  const dni = markerFor(api.service.spec.moduleByName.get('denuncias')!.fieldsByName.get('denunciante_dni')!)
  const mine = await api.create('denuncias', { ...VALID['denuncias']!(), denunciante_dni: dni }, agente.token)
  await api.request('PUT', `/denuncias/${mine._id}`, {
    token: agente.token,
    body: { descripcion: 'Ampliada', denunciante_dni: `${dni}2` },
  })
  const other = await api.create('denuncias', VALID['denuncias']!())
  await api.request('DELETE', `/denuncias/${other._id}`, { token: admin })
  await api.create('vehiculos', VALID['vehiculos']!())
  // The answers to the writes above may have revealed values: their `consultar` entries are
  // written in a batch a moment later, and the totals below count them.
  await consultationsWritten(api)

  const all = await api.request('GET', '/auditoria?limit=1000', { token: admin })
  t.equal(all.status, 200)
  const entries = all.body.data.entries as Record<string, any>[]
  t.equal(all.body.data.total, entries.length)
  t.same(Object.keys(entries[0]!).sort(), ENTRY_KEYS, 'entry shape')
  t.same(
    entries.map((e) => e.seq),
    entries.map((_, i) => i + 1),
    'in sequence order',
  )
  t.notOk(JSON.stringify(all.body).includes(dni), 'no value anywhere in the trail')

  const page = await api.request('GET', '/auditoria?limit=2&offset=1', { token: admin })
  t.same(
    page.body.data.entries.map((e: { seq: number }) => e.seq),
    [2, 3],
    'limit 2 offset 1',
  )
  t.match(page.body.data, { total: entries.length, limit: 2, offset: 1 })
  t.equal(
    (await api.request('GET', '/auditoria?limit=5000', { token: admin })).body.data.limit,
    1000,
    'D11: the limit clamps',
  )

  const by = async (query: string) =>
    (await api.request('GET', `/auditoria?${query}`, { token: admin })).body.data.entries as Record<string, any>[]
  const modulo = await by('modulo=denuncias')
  t.ok(modulo.length >= 4 && modulo.every((e) => e.module === 'denuncias'), 'modulo')
  const registro = await by(`registro=${mine._id}`)
  t.ok(
    registro.every((e) => e.record_id === mine._id),
    'registro: only that record',
  )
  // Reads that reveal values may add `consultar` entries; the writes are these two.
  const writes = registro.filter((e) => e.action !== 'consultar')
  t.same(
    writes.map((e) => [e.action, e.version]),
    [
      ['crear', 1],
      ['editar', 2],
    ],
    'registro',
  )
  t.same(writes[1]!.fields.sort(), ['denunciante_dni', 'descripcion'], 'names of the changed fields')
  const usuario = await by(`usuario=${agente.id}`)
  t.ok(usuario.length >= 3 && usuario.every((e) => e.user_id === agente.id), 'usuario')
  t.ok(
    usuario.some((e) => e.action === 'login'),
    "the user's login is in the trail",
  )
  const accion = await by('accion=eliminar')
  t.same(
    accion.map((e) => e.record_id),
    [other._id],
    'accion',
  )
  const combined = await by(`modulo=denuncias&accion=crear&usuario=${agente.id}`)
  t.same(
    combined.map((e) => e.record_id),
    [mine._id],
    'filters combine',
  )
  t.same(await by('modulo=nada'), [], 'a value that matches nothing: empty')
  const volar = await api.request('GET', '/auditoria?accion=volar', { token: admin })
  t.equal(volar.status, 400, 'an action outside the list is 400, as an enum filter on records')
  t.match(volar.body, {
    success: false,
    error: /^Datos inválidos/,
    details: [{ field: 'accion', message: /uno de: crear, importar, editar.*\(recibido 'volar'\)/ }],
  })

  const unknown = await api.request('GET', '/auditoria?color=x', { token: admin })
  t.equal(unknown.status, 400, 'unknown filter: 400')
  t.equal(unknown.body.success, false)
  t.match(unknown.body.details, [{ field: 'color' }])
  t.equal(
    (await api.request('GET', '/auditoria?accion=a&accion=b', { token: admin })).status,
    400,
    'a repeated filter: 400',
  )
})

t.test(
  'D25: /{module}/{id}/historial lists one record’s entries, deleted records included, with {module}.ver',
  async (t) => {
    const api = await startTestApi(t)
    const admin = await api.adminToken()
    const consulta = await api.userWithRole('consulta')
    const agente = await api.userWithRole('agente')
    const nif = markerFor(api.service.spec.moduleByName.get('personal')!.fieldsByName.get('nif')!)
    const record = await api.create('personal', { ...VALID['personal']!(), nif })
    await api.create('personal', VALID['personal']!())
    await api.request('PUT', `/personal/${record._id}`, { token: admin, body: { destino: 'Tráfico' } })
    t.equal((await api.request('DELETE', `/personal/${record._id}`, { token: admin })).status, 200)
    t.equal(
      (await api.request('GET', `/personal/${record._id}`, { token: admin })).status,
      404,
      'the record is gone from reads',
    )

    const history = await api.request('GET', `/personal/${record._id}/historial`, { token: admin })
    t.equal(history.status, 200, 'its history is still there')
    // The writes: consultations of the record (an administrator's write answers reveal its values,
    // D29) join its history once the consultation log has written them, a matter of timing.
    const entries = (history.body.data.entries as Record<string, any>[]).filter((e) => e.action !== 'consultar')
    t.same(
      entries.map((e) => [e.action, e.version, e.record_id, e.module]),
      [
        ['crear', 1, record._id, 'personal'],
        ['editar', 2, record._id, 'personal'],
        ['eliminar', 3, record._id, 'personal'],
      ],
    )
    t.ok(entries[0]!.fields.includes('nif'), 'the entry names the fields')
    t.same(entries[0]!.changes.nif, { old: null, new: nif }, 'and its values, revealed with personal.descifrar')
    t.same(entries[1]!.fields, ['destino'])

    const masked = await api.request('GET', `/personal/${record._id}/historial`, {
      token: consulta.token,
      headers: { 'x-motivo': 'Revisión' },
    })
    t.equal(masked.status, 200, 'consulta holds personal.ver (and gives the motivo modules.yaml requires)')
    t.notOk(JSON.stringify(masked.body).includes(nif), 'without personal.descifrar, no encrypted value (D15)')
    const refused = await api.request('GET', `/personal/${record._id}/historial`, { token: agente.token })
    t.same(
      [refused.status, refused.body],
      [
        403,
        {
          success: false,
          error: FORBIDDEN,
          details: [{ field: 'permiso', message: "El rol 'agente' no tiene el permiso 'personal.ver'" }],
        },
      ],
      'agente lacks personal.ver, and is told so',
    )
    const missing = await api.request('GET', '/personal/PER-2026-99999/historial', { token: admin })
    t.same([missing.status, missing.body.error], [404, 'Registro no encontrado'], 'an id that never existed: 404')
    const wrongModule = await api.request('GET', `/denuncias/${record._id}/historial`, { token: admin })
    t.equal(wrongModule.status, 404, 'the id under another module: 404')
  },
)
