// D14: tampered ciphertext fails its GCM tag and is never returned as garbage. The record
// still reads, with the damaged fields null and `_integridad`, so one
// bad value does not make a whole module unreadable; the failure is logged, audited and verified.
import { sql } from 'kysely'
import t, { type Test } from 'tap'
import { verifyIntegrity } from '../../../src/db/operations/verify-integrity.js'
import { startTestApi, VALID } from '../../helpers/api.js'
import { captureLogs, eventually, markerFor, rawRow, tamper } from './support.js'

/** Changes the first character of the ciphertext part of `v1.<key>.<iv>.<tag>.<body>`. */
function flip(stored: string, part: number): string {
  const parts = stored.split('.')
  const text = parts[part] as string
  parts[part] = `${text[0] === 'A' ? 'B' : 'A'}${text.slice(1)}`
  return parts.join('.')
}

/** The record reads, its damaged field null and named, every other value as stored. */
const assertMarked = (t: Test, record: any, label: string) => {
  t.equal(record?.denunciante_dni, null, `${label}: the damaged value reads as null`)
  t.equal(record?._integridad, 'error', `${label}: _integridad marks the record`)
  t.same(record?._integridad_campos, ['denunciante_dni'], `${label}: and names the field`)
  t.equal(record?.lugar_hechos, 'Plaza Mayor', `${label}: the rest of the record reads`)
}

t.test(
  'D14: a flipped ciphertext, IV, tag or key id is marked, never garbage, and the module stays readable',
  async (t) => {
    const logs = captureLogs()
    const api = await startTestApi(t, { logger: { level: 'info', stream: logs.stream } })
    const token = await api.adminToken()
    const consulta = await api.userWithRole('consulta')
    const field = api.service.spec.moduleByName.get('denuncias')!.fieldsByName.get('denunciante_dni')!
    const cases: [string, (stored: string) => string][] = [
      ['body', (s) => flip(s, 4)],
      ['tag', (s) => flip(s, 3)],
      ['iv', (s) => flip(s, 2)],
      // A value under the service key names it (v1), one under its record's data key (D41) that key (r1).
      [
        'unknown key id',
        (s) => s.replace(/^v1\.[0-9a-f]{8}\./, 'v1.00000000.').replace(/^r1\.[0-9a-f]{16}\./, 'r1.0000000000000000.'),
      ],
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
      t.equal(one.status, 200, `${label}: GET by a revealing role`)
      assertMarked(t, one.body.data, `${label}: GET`)
      const list = await api.request('GET', `/denuncias?limit=1000`, { token })
      t.equal(list.status, 200, `${label}: the list by a revealing role answers`)
      assertMarked(
        t,
        list.body.data.records.find((r: any) => r._id === id),
        `${label}: list`,
      )
      t.ok(
        list.body.data.records.filter((r: any) => r._id !== id).every((r: any) => r._integridad === undefined),
        `${label}: other records unmarked`,
      )
      for (const reply of [one, list]) {
        const text = JSON.stringify(reply.body)
        t.notOk(text.includes(dni), 'no plaintext')
        t.notOk(/stack|select|sqlite| {4}at /i.test(text), 'no stack or SQL')
      }
      // A masked reader never decrypts, so the record still reads as '***' for it.
      const masked = await api.request('GET', `/denuncias/${id}`, { token: consulta.token })
      t.equal(masked.status, 200, `${label}: a masked read is unaffected`)
      t.equal(masked.body.data.denunciante_dni, '***')
      await api.request('DELETE', `/denuncias/${id}`, { token })
    }
    t.match(
      logs.text(),
      /"level":60[^\n]*"alert":"integridad"[^\n]*no superan su comprobación/,
      'each damaged record raises the fatal integrity alert',
    )
    t.notOk(
      dnis.some((dni) => logs.text().includes(dni)),
      'no plaintext in the logs either',
    )
  },
)

t.test('D14: a ciphertext copied from another record fails (the value is bound to its record)', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  const field = api.service.spec.moduleByName.get('denuncias')!.fieldsByName.get('denunciante_dni')!
  const source = await api.create('denuncias', { ...VALID['denuncias']!(), denunciante_dni: markerFor(field) })
  const target = await api.create('denuncias', { ...VALID['denuncias']!(), denunciante_dni: markerFor(field) })
  const stolen = (await rawRow(api, 'denuncias', source._id))['denunciante_dni']
  await tamper(api, sql`update denuncias set denunciante_dni = ${stolen} where _id = ${target._id}`)
  const copied = await api.request('GET', `/denuncias/${target._id}`, { token })
  t.equal(copied.status, 200)
  assertMarked(t, copied.body.data, 'copied between records')
  t.equal((await api.request('GET', `/denuncias/${source._id}`, { token })).status, 200, 'the source still reads')
})

t.test('D17/D18: values swapped between fields of one record decrypt, but verification names the record', async (t) => {
  // The GCM context binds a value to module and record, not to the field: the swap is caught by _hash.
  const api = await startTestApi(t)
  const spec = api.service.spec.moduleByName.get('denuncias')!
  const { _id: id } = await api.create('denuncias', {
    ...VALID['denuncias']!(),
    denunciante_dni: markerFor(spec.fieldsByName.get('denunciante_dni')!),
    denunciante_telefono: markerFor(spec.fieldsByName.get('denunciante_telefono')!),
  })
  t.same((await verifyIntegrity(api.service.database, api.service.spec, api.service.codec)).problems, [])
  await tamper(
    api,
    sql`update denuncias set denunciante_dni = denunciante_telefono, denunciante_telefono = denunciante_dni where _id = ${id}`,
  )
  const { problems } = await verifyIntegrity(api.service.database, api.service.spec, api.service.codec)
  t.match(problems, [{ kind: 'record_hash', module: 'denuncias', recordId: id }])
})

t.test('a damaged value is loud: audited once, /health detail, `records audit verify` names it', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  const field = api.service.spec.moduleByName.get('denuncias')!.fieldsByName.get('denunciante_dni')!
  const healthy = await api.create('denuncias', { ...VALID['denuncias']!(), denunciante_dni: markerFor(field) })
  const { _id: id } = await api.create('denuncias', { ...VALID['denuncias']!(), denunciante_dni: markerFor(field) })
  t.same((await api.request('GET', '/health')).body, { success: true, data: { status: 'ok' } }, 'nothing to report yet')
  const stored = String((await rawRow(api, 'denuncias', id))['denunciante_dni'])
  await tamper(api, sql`update denuncias set denunciante_dni = ${flip(stored, 4)} where _id = ${id}`)
  for (let i = 0; i < 3; i++) t.equal((await api.request('GET', '/denuncias', { token })).status, 200)
  t.equal(
    (await api.request('GET', `/denuncias/${healthy._id}`, { token })).body.data._integridad,
    undefined,
    'a healthy record has no marker',
  )
  const health = await api.request('GET', '/health')
  t.same(health.body, {
    success: true,
    data: { status: 'ok', integridad: { estado: 'error', registros_afectados: 1 } },
  })
  const entries = await eventually(
    async () => (await api.request('GET', '/auditoria?accion=integridad', { token })).body.data.entries as any[],
    (rows) => rows.length > 0,
  )
  t.match(
    entries,
    [{ action: 'integridad', module: 'denuncias', record_id: id, fields: ['denunciante_dni'] }],
    'audited once, naming the field',
  )
  const { problems } = await verifyIntegrity(api.service.database, api.service.spec, api.service.codec)
  t.match(problems, [
    { kind: 'record_hash', recordId: id },
    { kind: 'record_decrypt', module: 'denuncias', recordId: id, message: /denunciante_dni/ },
  ])
  const masked = await api.userWithRole('consulta')
  t.equal(
    (await api.request('GET', `/denuncias/${id}`, { token: masked.token })).body.data.denunciante_dni,
    '***',
    'a masked reader sees ***',
  )
})

t.test('a GET body sent back keeps the damaged value; a new value repairs it', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  const field = api.service.spec.moduleByName.get('denuncias')!.fieldsByName.get('denunciante_dni')!
  const { _id: id } = await api.create('denuncias', { ...VALID['denuncias']!(), denunciante_dni: markerFor(field) })
  const stored = String((await rawRow(api, 'denuncias', id))['denunciante_dni'])
  await tamper(api, sql`update denuncias set denunciante_dni = ${flip(stored, 4)} where _id = ${id}`)
  const read = (await api.request('GET', `/denuncias/${id}`, { token })).body.data
  const back = await api.request('PUT', `/denuncias/${id}`, { token, body: { ...read, descripcion: 'Revisada' } })
  t.equal(back.status, 200, 'the record stays writable')
  t.match(
    back.body.data,
    { descripcion: 'Revisada', denunciante_dni: null, _integridad: 'error' },
    'the answer is marked too',
  )
  t.equal(
    (await rawRow(api, 'denuncias', id))['denunciante_dni'],
    flip(stored, 4),
    'the null sent back did not clear the stored value',
  )
  const repaired = await api.request('PUT', `/denuncias/${id}`, { token, body: { denunciante_dni: '12345678Z' } })
  t.equal(repaired.status, 200)
  t.equal(repaired.body.data.denunciante_dni, '12345678Z', 'a new value replaces the damaged one')
  t.equal(repaired.body.data._integridad, undefined, 'and the marker goes')
  // The last change, not the last entry: on PostgreSQL an earlier read's consultation may be
  // sealed into the chain after the change (D25, D38), and history lists reads too.
  const history = (await api.request('GET', `/denuncias/${id}/historial`, { token })).body.data.entries as {
    action: string
  }[]
  t.match(
    history.filter((e) => e.action !== 'consultar').at(-1),
    { action: 'editar', fields: ['denunciante_dni'] },
    'the repair is the last change in the history',
  )
})
