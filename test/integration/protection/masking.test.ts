// D15: encrypted fields read as '***' without `{module}.descifrar`, for every role of D21;
// a write that sends '***' back leaves the stored ciphertext untouched.
import t from 'tap'
import { startTestApi, VALID, type TestApi } from '../../helpers/api.js'
import { encryptedModules, FORBIDDEN, markerFor, rawRow, ROLES, type RoleName } from './support.js'

/** personal asks roles below jefe for a motivo; these tables are about masking. */
const MOTIVO = { 'x-motivo': 'Comprobación de enmascarado' }

/**
 * Under D26 an agente reads only the records of their scope: the seeded ones are assigned to every test user's
 * personal_id.
 */
const AGENTE = 'PER-2026-00011'
const IN_AGENTE_SCOPE: Record<string, Record<string, string>> = {
  denuncias: { agente_asignado: AGENTE },
  sanciones: { agente_denunciante: AGENTE },
}

type Sight = 'plain' | 'mask' | 403

// Written from the text of D21, not from modules.yaml: a change to either must be deliberate.
const ALL_RECORD_ROLES: Record<RoleName, Sight> = {
  superadmin: 'plain',
  administrador: 'plain',
  jefe: 'plain',
  oficial: 'plain',
  agente: 'plain',
  consulta: 'mask',
}
const EXPECTED: Record<string, Record<RoleName, Sight>> = {
  denuncias: ALL_RECORD_ROLES,
  sanciones: ALL_RECORD_ROLES,
  sala092: ALL_RECORD_ROLES,
  // jefe holds personal.*; oficial and consulta only personal.ver; agente not even that.
  personal: {
    superadmin: 'plain',
    administrador: 'plain',
    jefe: 'plain',
    oficial: 'mask',
    agente: 403,
    consulta: 'mask',
  },
}

async function seed(api: TestApi) {
  const records: { module: string; id: string; values: Record<string, string> }[] = []
  for (const { spec, fields } of encryptedModules(api)) {
    const values = Object.fromEntries(fields.map((f) => [f.name, markerFor(f)]))
    const created = await api.create(spec.name, { ...VALID[spec.name]!(), ...IN_AGENTE_SCOPE[spec.name], ...values })
    records.push({ module: spec.name, id: created._id, values })
  }
  return records
}

t.test('D15: every role of D21 reads encrypted fields in plain text only with {module}.descifrar', async (t) => {
  const api = await startTestApi(t)
  const records = await seed(api)
  t.same(
    records.map((r) => r.module).sort(),
    Object.keys(EXPECTED).sort(),
    'the table covers every module with encrypted fields',
  )
  for (const role of ROLES) {
    const { token } = await api.userWithRole(role, { personal_id: AGENTE })
    for (const { module, id, values } of records) {
      const expected = EXPECTED[module]![role]
      const one = await api.request('GET', `/${module}/${id}`, { token, headers: MOTIVO })
      const list = await api.request(
        'GET',
        `/${module}?_created_by=${encodeURIComponent(one.body.data?._created_by ?? '')}`,
        { token, headers: MOTIVO },
      )
      if (expected === 403) {
        t.same(
          [one.status, one.body],
          [
            403,
            {
              success: false,
              error: FORBIDDEN,
              details: [{ field: 'permiso', message: `El rol '${role}' no tiene el permiso '${module}.ver'` }],
            },
          ],
          `${role} ${module}: no ver, 403`,
        )
        t.equal(list.status, 403)
        continue
      }
      t.equal(one.status, 200, `${role} ${module}: 200`)
      const listed = (list.body.data.records as { _id: string }[]).find((r) => r._id === id) as Record<string, unknown>
      for (const [field, value] of Object.entries(values)) {
        const want = expected === 'plain' ? value : '***'
        t.equal(one.body.data[field], want, `${role} ${module}.${field}: ${expected} on GET`)
        t.equal(listed?.[field], want, `${role} ${module}.${field}: ${expected} on list`)
      }
      const plainField = module === 'personal' ? 'nombre' : Object.keys(VALID[module]!()).find((k) => !(k in values))!
      t.not(one.body.data[plainField], '***', `${role} ${module}: fields that are not encrypted are never masked`)
    }
  }
})

t.test('D15: writing *** for an encrypted field leaves the stored value unchanged', async (t) => {
  const api = await startTestApi(t)
  const admin = await api.adminToken()
  const records = await seed(api)
  const consulta = await api.userWithRole('consulta')
  const oficial = await api.userWithRole('oficial')
  const jefe = await api.userWithRole('jefe')

  for (const { module, id, values } of records) {
    const before = await rawRow(api, module, id)
    // What a masked reader sees, sent back whole (metadata is ignored on write, D7) by a role that may edit.
    const masked = (await api.request('GET', `/${module}/${id}`, { token: consulta.token, headers: MOTIVO })).body.data
    for (const field of Object.keys(values)) t.equal(masked[field], '***')
    const editor = module === 'personal' ? jefe.token : oficial.token
    const put = await api.request('PUT', `/${module}/${id}`, { token: editor, body: masked })
    t.equal(put.status, 200, `${module}: the masked record is accepted back`)
    t.equal(put.body.data._version, 2)
    const after = await rawRow(api, module, id)
    for (const [field, value] of Object.entries(values)) {
      t.equal(after[field], before[field], `${module}.${field}: ciphertext untouched`)
      t.equal(after[`_bidx_${field}`], before[`_bidx_${field}`], `${module}.${field}: blind index untouched`)
      t.equal(put.body.data[field], value, `${module}.${field}: the editor reads the original back`)
    }
    const read = await api.request('GET', `/${module}/${id}`, { token: admin })
    for (const [field, value] of Object.entries(values))
      t.equal(read.body.data[field], value, `${module}.${field}: admin reads the original`)
    const history = await api.request('GET', `/${module}/${id}/historial`, { token: admin })
    const edit = (history.body.data.entries as { action: string; fields: string[] }[]).find(
      (e) => e.action === 'editar',
    )
    t.same(
      edit?.fields.filter((f) => f in values),
      [],
      `${module}: the audit entry does not claim the masked fields changed`,
    )
  }

  // One field '***', another replaced: only the replaced one changes.
  const { id, values } = records.find((r) => r.module === 'denuncias')!
  const fresh = markerFor(api.service.spec.moduleByName.get('denuncias')!.fieldsByName.get('denunciante_telefono')!)
  const partial = await api.request('PUT', `/denuncias/${id}`, {
    token: admin,
    body: { denunciante_dni: '***', denunciante_telefono: fresh },
  })
  t.equal(partial.body.data.denunciante_dni, values['denunciante_dni'])
  t.equal(partial.body.data.denunciante_telefono, fresh)

  // '***' on create stores nothing: the mask never becomes a value.
  const created = await api.create('denuncias', { ...VALID['denuncias']!(), denunciante_dni: '***' })
  const raw = await rawRow(api, 'denuncias', created._id)
  t.equal(raw['denunciante_dni'], null, '*** on create is not stored')
  t.equal(created.denunciante_dni, null)
})
