// D17: `_hash` is the SHA-256 hex of the canonical JSON of the row as stored (ciphertext for
// encrypted fields, metadata included, `_hash` excluded), recomputed here from the raw SQLite
// row without the service's codec, and it changes with every version.
import t from 'tap'
import { startTestApi, VALID } from '../../helpers/api.js'
import { expectedHash, markerFor, rawRow } from './support.js'

// Bodies that also fill JSON, boolean, decimal and encrypted columns.
const RICH: Record<string, () => Record<string, unknown>> = {
  denuncias: () => ({
    ...VALID['denuncias']!(),
    denunciante_dni: '12345678Z',
    testigos: [{ nombre: 'Eva', dni: 'X1' }],
    adjuntos: [],
  }),
  sanciones: () => ({ ...VALID['sanciones']!(), infractor_dni: '87654321X', importe: 90.5, puntos_carnet: 3 }),
  atestados: () => ({ ...VALID['atestados']!(), imputados: ['A', 'B'], victimas: [{ b: 1, a: 2 }] }),
  personal: () => ({
    ...VALID['personal']!(),
    nif: `N${Math.random()}`,
    fecha_nacimiento: '1980-02-29',
    idiomas: ['es', 'en'],
  }),
  vehiculos: () => ({ ...VALID['vehiculos']!(), km_actuales: 1200 }),
  sala092: () => ({ ...VALID['sala092']!(), numero_llamada: '600000000' }),
  turnos: () => ({ ...VALID['turnos']!(), hora_inicio: '07:00' }),
  equipamiento: () => ({ ...VALID['equipamiento']!(), numero_serie: `S${Math.random()}` }),
  usuarios: () => ({
    username: `u${Math.random().toString(36).slice(2, 8)}`,
    password: 'password-hash-1',
    nombre: 'Hash',
    rol: 'consulta',
    activo: false,
    email: 'h@x.es',
  }),
}
const CHANGE: Record<string, Record<string, unknown>> = {
  denuncias: { descripcion: 'cambiada', testigos: [] },
  sanciones: { importe: 91 },
  atestados: { juzgado: 'Juzgado 3' },
  personal: { nombre: 'Otra' },
  vehiculos: { km_actuales: 1300 },
  sala092: { numero_llamada: '611111111' },
  turnos: { hora_fin: '15:00' },
  equipamiento: { nombre: 'Otra emisora' },
  usuarios: { activo: true },
}

t.test(
  'D17: _hash is the SHA-256 of the canonical stored row and changes with every version, in every module',
  async (t) => {
    const api = await startTestApi(t)
    const token = await api.adminToken()
    t.same(Object.keys(RICH).sort(), api.service.spec.modules.map((m) => m.name).sort(), 'every module is covered')
    // turnos.agente_id references PER-…-00001 (a ref): a staff record that stays while the
    // loop deletes its own.
    await api.create('personal', VALID['personal']!())
    for (const spec of api.service.spec.modules) {
      const module = spec.name
      const hashes: string[] = []
      const check = async (label: string, apiHash?: string) => {
        const raw = await rawRow(api, module, id)
        t.equal(raw['_hash'], expectedHash(spec, raw), `${module} ${label}: stored _hash matches the recomputation`)
        if (apiHash !== undefined)
          t.equal(apiHash, raw['_hash'], `${module} ${label}: the API returns the stored _hash`)
        t.match(raw['_hash'], /^[0-9a-f]{64}$/)
        hashes.push(String(raw['_hash']))
      }
      const created = await api.request('POST', `/${module}`, { token, body: RICH[module]!() })
      t.equal(created.status, 201, `${module} created`)
      const id = created.body.data._id as string
      await check('v1', created.body.data._hash)
      const updated = await api.request('PUT', `/${module}/${id}`, { token, body: CHANGE[module] })
      await check('v2', updated.body.data._hash)
      // Same values again: the version and _modified still change, so the hash does too.
      const same = await api.request('PUT', `/${module}/${id}`, { token, body: CHANGE[module] })
      await check('v3 (no value changed)', same.body.data._hash)
      t.equal((await api.request('DELETE', `/${module}/${id}`, { token })).status, 200)
      await check('v4 (deleted)')
      t.equal(new Set(hashes).size, hashes.length, `${module}: a different _hash for every version`)

      // The audit trail carries each version's hash (D18).
      const history = await api.request('GET', `/${module}/${id}/historial`, { token })
      t.same(
        // Reads revealing encrypted values are audited too, written a moment later: only
        // the writes carry a version's hash.
        (history.body.data.entries as { record_hash: string; action: string }[])
          .filter((e) => e.action !== 'consultar')
          .map((e) => e.record_hash),
        hashes,
        `${module}: history holds each version's _hash`,
      )
    }
  },
)

t.test('D17: the hash covers the ciphertext, so re-encrypting the same value changes it', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  const spec = api.service.spec.moduleByName.get('denuncias')!
  const dni = markerFor(spec.fieldsByName.get('denunciante_dni')!)
  const created = await api.create('denuncias', { ...VALID['denuncias']!(), denunciante_dni: dni })
  const before = await rawRow(api, 'denuncias', created._id)
  await api.request('PUT', `/denuncias/${created._id}`, { token, body: { denunciante_dni: dni } })
  const after = await rawRow(api, 'denuncias', created._id)
  t.not(after['denunciante_dni'], before['denunciante_dni'], 'a fresh IV per write (D14)')
  t.equal(after['_bidx_denunciante_dni'], before['_bidx_denunciante_dni'], 'the blind index is deterministic')
  t.equal(after['_hash'], expectedHash(spec, after))
  t.notOk(String(after['denunciante_dni']).includes(dni))
})
