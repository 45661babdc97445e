// D14 / issue #3: tampered ciphertext fails its GCM tag and is reported as an integrity error
// in the envelope (no stack, no SQL, no value), never returned as garbage.
import { sql } from 'kysely'
import t, { type Test } from 'tap'
import { verifyIntegrity } from '../../../src/db/verify-integrity.js'
import { startTestApi, VALID } from '../../helpers/api.js'
import { captureLogs, markerFor, rawRow, tamper } from './support.js'

const INTEGRITY = 'Error de integridad en los datos almacenados'

/** Changes the first character of the ciphertext part of `v1.<key>.<iv>.<tag>.<body>`. */
function flip(stored: string, part: number): string {
  const parts = stored.split('.')
  const text = parts[part] as string
  parts[part] = `${text[0] === 'A' ? 'B' : 'A'}${text.slice(1)}`
  return parts.join('.')
}

const assertIntegrityError = (t: Test, reply: { status: number; body: any }, label: string) => {
  t.equal(reply.status, 500, `${label}: 500`)
  t.same(reply.body, { success: false, error: INTEGRITY }, `${label}: the envelope and nothing else`)
}

t.test('D14: a flipped ciphertext, IV, tag or key id is an integrity error, not garbage', async (t) => {
  const logs = captureLogs()
  const api = await startTestApi(t, { logger: { level: 'info', stream: logs.stream } })
  const token = await api.adminToken()
  const consulta = await api.userWithRole('consulta')
  const field = api.service.spec.moduleByName.get('denuncias')!.fieldsByName.get('denunciante_dni')!
  const cases: [string, (stored: string) => string][] = [
    ['body', (s) => flip(s, 4)],
    ['tag', (s) => flip(s, 3)],
    ['iv', (s) => flip(s, 2)],
    ['unknown key id', (s) => s.replace(/^v1\.[0-9a-f]{8}\./, 'v1.00000000.')],
    ['truncated', (s) => s.slice(0, -6)],
  ]
  const dnis: string[] = []
  for (const [label, change] of cases) {
    const dni = markerFor(field)
    dnis.push(dni)
    const { _id: id } = await api.create('denuncias', { ...VALID['denuncias']!(), denunciante_dni: dni })
    const stored = String((await rawRow(api, 'denuncias', id))['denunciante_dni'])
    t.equal(await tamper(api, sql`update denuncias set denunciante_dni = ${change(stored)} where _id = ${id}`), 1)

    const one = await api.request('GET', `/denuncias/${id}`, { token })
    assertIntegrityError(t, one, `${label}: GET by a revealing role`)
    const list = await api.request('GET', `/denuncias?_created_by=${encodeURIComponent(one.body?.data?._created_by ?? 'USR-2026-00001')}`, { token })
    assertIntegrityError(t, list, `${label}: list by a revealing role`)
    for (const reply of [one, list]) {
      const text = JSON.stringify(reply.body)
      t.notOk(text.includes(dni), 'no plaintext')
      t.notOk(/stack|select|sqlite|    at /i.test(text), 'no stack or SQL')
    }
    // A masked reader never decrypts, so the record still reads as '***' for it.
    const masked = await api.request('GET', `/denuncias/${id}`, { token: consulta.token })
    t.equal(masked.status, 200, `${label}: a masked read is unaffected`)
    t.equal(masked.body.data.denunciante_dni, '***')
    await api.request('DELETE', `/denuncias/${id}`, { token })
  }
  t.match(logs.text(), /request failed/, 'the cause is logged')
  t.notOk(dnis.some((dni) => logs.text().includes(dni)), 'no plaintext in the logs either')
})

t.test('D14: a ciphertext copied from another record fails (the value is bound to its record)', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  const field = api.service.spec.moduleByName.get('denuncias')!.fieldsByName.get('denunciante_dni')!
  const source = await api.create('denuncias', { ...VALID['denuncias']!(), denunciante_dni: markerFor(field) })
  const target = await api.create('denuncias', { ...VALID['denuncias']!(), denunciante_dni: markerFor(field) })
  const stolen = (await rawRow(api, 'denuncias', source._id))['denunciante_dni']
  await tamper(api, sql`update denuncias set denunciante_dni = ${stolen} where _id = ${target._id}`)
  assertIntegrityError(t, await api.request('GET', `/denuncias/${target._id}`, { token }), 'copied between records')
  t.equal((await api.request('GET', `/denuncias/${source._id}`, { token })).status, 200, 'the source still reads')
})

t.test('D17/D18: values swapped between fields of one record decrypt, but verification names the record', async (t) => {
  // The GCM context binds a value to module and record, not to the field: the swap is caught by _hash.
  const api = await startTestApi(t)
  const spec = api.service.spec.moduleByName.get('denuncias')!
  const { _id: id } = await api.create('denuncias', {
    ...VALID['denuncias']!(), denunciante_dni: markerFor(spec.fieldsByName.get('denunciante_dni')!),
    denunciante_telefono: markerFor(spec.fieldsByName.get('denunciante_telefono')!),
  })
  t.same((await verifyIntegrity(api.service.database, api.service.spec, api.service.codec)).problems, [])
  await tamper(api, sql`update denuncias set denunciante_dni = denunciante_telefono, denunciante_telefono = denunciante_dni where _id = ${id}`)
  const { problems } = await verifyIntegrity(api.service.database, api.service.spec, api.service.codec)
  t.match(problems, [{ kind: 'record_hash', module: 'denuncias', recordId: id }])
})
