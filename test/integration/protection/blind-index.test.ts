// D16: exact-match filters on encrypted fields go through a keyed blind index and need
// `{module}.descifrar` (403 otherwise, for every role of D21); D12 uniqueness of personal.nif
// is enforced through the same index.
import { createHash } from 'node:crypto'
import t from 'tap'
import { startTestApi, VALID } from '../../helpers/api.js'
import { encryptedModules, FORBIDDEN, markerFor, rawRow, ROLES, type RoleName } from './support.js'

/** personal asks roles below jefe for a motivo; these tables are about permissions. */
const MOTIVO = { 'x-motivo': 'Comprobación de permisos' }

/**
 * Under D26 an agente reads only the records of their scope: the seeded ones are assigned to every test user's
 * personal_id.
 */
const AGENTE = 'PER-2026-00011'
const IN_AGENTE_SCOPE: Record<string, Record<string, string>> = {
  denuncias: { agente_asignado: AGENTE },
  sanciones: { agente_denunciante: AGENTE },
}

// From D21: who holds `{module}.descifrar`.
const ALL: readonly RoleName[] = ['superadmin', 'administrador', 'jefe', 'oficial', 'agente']
const DESCIFRAR: Record<string, readonly RoleName[]> = {
  denuncias: ALL,
  sanciones: ALL,
  sala092: ALL,
  personal: ['superadmin', 'administrador', 'jefe'],
}

t.test('D16: an exact-match filter on each encrypted field finds exactly the matching live records', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  for (const { spec, fields } of encryptedModules(api)) {
    for (const field of fields) {
      const value = markerFor(field)
      const other = markerFor(field)
      const unique = field.def.unique === true
      const hit = await api.create(spec.name, { ...VALID[spec.name]!(), [field.name]: value })
      const twin = unique ? undefined : await api.create(spec.name, { ...VALID[spec.name]!(), [field.name]: value })
      await api.create(spec.name, { ...VALID[spec.name]!(), [field.name]: other })
      const gone = unique ? undefined : await api.create(spec.name, { ...VALID[spec.name]!(), [field.name]: value })
      if (gone !== undefined) await api.request('DELETE', `/${spec.name}/${gone._id}`, { token })

      const found = await api.request('GET', `/${spec.name}?${field.name}=${encodeURIComponent(value)}`, { token })
      t.equal(found.status, 200, `${spec.name}.${field.name}: 200`)
      const ids = (found.body.data.records as { _id: string }[]).map((r) => r._id).sort()
      t.same(
        ids,
        [hit._id, ...(twin === undefined ? [] : [twin._id])].sort(),
        `${spec.name}.${field.name}: exactly the live matches`,
      )
      t.equal(found.body.data.total, ids.length)
      t.equal(found.body.data.records[0][field.name], value, 'returned decrypted to a revealing role')

      // A prefix of the value (or, for a date, another date) matches nothing.
      const near = field.def.type === 'date' ? markerFor(field) : value.slice(0, -1)
      const none = await api.request(
        'GET',
        `/${spec.name}?${field.name}=${encodeURIComponent(near === value ? '1900-01-01' : near)}`,
        { token },
      )
      t.equal(none.body.data?.total, 0, `${spec.name}.${field.name}: no partial or neighbouring match`)

      // The index is keyed: neither the value nor an unkeyed digest of it is stored.
      const stored = String((await rawRow(api, spec.name, hit._id))[`_bidx_${field.name}`])
      t.notOk(stored.includes(value), 'blind index does not contain the value')
      for (const encoding of ['hex', 'base64', 'base64url'] as const)
        t.not(
          stored,
          createHash('sha256').update(value).digest(encoding),
          `blind index is not a plain SHA-256 (${encoding})`,
        )
    }
  }
  // An encrypted filter combines with an ordinary one.
  const dni = markerFor(api.service.spec.moduleByName.get('denuncias')!.fieldsByName.get('denunciante_dni')!)
  const robo = await api.create('denuncias', { ...VALID['denuncias']!(), tipo: 'robo', denunciante_dni: dni })
  await api.create('denuncias', { ...VALID['denuncias']!(), tipo: 'hurto', denunciante_dni: dni })
  const both = await api.request('GET', `/denuncias?denunciante_dni=${dni}&tipo=robo`, { token })
  t.same(
    (both.body.data.records as { _id: string }[]).map((r) => r._id),
    [robo._id],
    'encrypted and plain filters combine',
  )
})

t.test('D16: filtering on an encrypted field without {module}.descifrar is 403 for every role of D21', async (t) => {
  const api = await startTestApi(t)
  const values = new Map<string, { field: string; value: string; id: string }>()
  for (const { spec, fields } of encryptedModules(api)) {
    const field = fields[0]!
    const value = markerFor(field)
    values.set(spec.name, {
      field: field.name,
      value,
      id: (await api.create(spec.name, { ...VALID[spec.name]!(), ...IN_AGENTE_SCOPE[spec.name], [field.name]: value }))
        ._id,
    })
  }
  t.same(
    [...values.keys()].sort(),
    Object.keys(DESCIFRAR).sort(),
    'the table covers every module with encrypted fields',
  )
  for (const role of ROLES) {
    const { token } = await api.userWithRole(role, { personal_id: AGENTE })
    for (const [module, { field, value, id }] of values) {
      const reply = await api.request('GET', `/${module}?${field}=${encodeURIComponent(value)}`, {
        token,
        headers: MOTIVO,
      })
      if (DESCIFRAR[module]!.includes(role)) {
        t.equal(reply.status, 200, `${role} ${module}.${field}: allowed`)
        t.same(
          (reply.body.data.records as { _id: string }[]).map((r) => r._id),
          [id],
          `${role} ${module}: finds the record`,
        )
      } else {
        t.equal(reply.status, 403, `${role} ${module}.${field}: 403`)
        // The 403 names what is missing: ver (agente on personal) or descifrar.
        t.match(reply.body, {
          success: false,
          error: FORBIDDEN,
          details: [
            {
              field: 'permiso',
              message: new RegExp(`^El rol '${role}' no tiene el permiso '${module}\\.(ver|descifrar)'$`),
            },
          ],
        })
      }
    }
  }
  // consulta may still list without the encrypted filter: it is the filter that is refused.
  const { token } = await api.userWithRole('consulta')
  t.equal((await api.request('GET', '/denuncias?tipo=hurto', { token })).status, 200, 'plain filters stay allowed')
  const masked = await api.request('GET', '/denuncias?denunciante_dni=***', { token })
  t.equal(masked.status, 403, 'filtering by the mask itself is still a filter on an encrypted field')
})

t.test('D12/D16: personal.nif is unique among live records through its blind index', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  const nif = markerFor(api.service.spec.moduleByName.get('personal')!.fieldsByName.get('nif')!)
  const first = await api.create('personal', { ...VALID['personal']!(), nif })
  const duplicate = await api.request('POST', '/personal', { token, body: { ...VALID['personal']!(), nif } })
  t.equal(duplicate.status, 409, 'a second record with the same nif: 409')
  t.equal(duplicate.body.success, false)
  t.match(duplicate.body.error, /nif/, 'the conflict names the field')
  t.same(duplicate.body.details, [{ field: 'nif', message: "El valor de 'nif' ya está en uso" }])
  t.notOk(JSON.stringify(duplicate.body).includes(nif), 'the value itself is not echoed (D14)')

  const second = await api.create('personal', { ...VALID['personal']!(), nif: `${nif}b` })
  const clash = await api.request('PUT', `/personal/${second._id}`, { token, body: { nif } })
  t.equal(clash.status, 409, 'updating another record to a taken nif: 409')
  t.equal(
    (await api.request('PUT', `/personal/${first._id}`, { token, body: { nif, nombre: 'Otra' } })).status,
    200,
    'keeping its own nif is no conflict',
  )

  t.equal((await api.request('DELETE', `/personal/${first._id}`, { token })).status, 200)
  const reused = await api.request('POST', '/personal', { token, body: { ...VALID['personal']!(), nif } })
  t.equal(reused.status, 201, 'D12: a deleted record no longer holds the value')
})
