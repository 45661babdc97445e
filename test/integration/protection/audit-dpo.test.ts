// What the data protection officer asks of GET /auditoria. desde/hasta (ms
// or the service's wall clock), usuario (id or username), modulo, registro (record_id or one of
// the ids a read returned), accion, and "who consulted this person" (dni=, campo= + valor=)
// through the blind index, deleted records included; bad values are 400 naming the parameter.
import t from 'tap'
import { formatExactTimestamp } from '../../../src/compile/time.js'
import { appendAudit } from '../../../src/db/audit/log.js'
import { startTestApi, VALID, type TestApi } from '../../helpers/api.js'
import { eventually, markerFor } from './support.js'

type Entry = Record<string, any>

const trail = async (api: TestApi, query: string): Promise<{ status: number; entries: Entry[]; body: any }> => {
  const reply = await api.request('GET', `/auditoria?limit=1000&${query}`, { token: await api.adminToken() })
  return { status: reply.status, entries: reply.body?.data?.entries ?? [], body: reply.body }
}

const refersTo = (e: Entry, id: string) => e.record_id === id || (e.record_ids ?? []).includes(id)
const pause = (ms: number) => new Promise((done) => setTimeout(done, ms))

t.test('desde/hasta, usuario, modulo, registro and accion, alone and combined', async (t) => {
  const api = await startTestApi(t)
  const timezone = api.service.spec.service.timezone
  const agente = await api.userWithRole('agente')
  const first = await api.create('denuncias', VALID['denuncias']!(), agente.token)
  await pause(5)
  const since = Date.now()
  await pause(5)
  const second = await api.create('sanciones', VALID['sanciones']!())
  const all = (await trail(api, '')).entries

  const sinceText = formatExactTimestamp(new Date(since), timezone)
  const after = await trail(api, `desde=${since}`)
  t.equal(after.status, 200)
  t.same(
    after.entries.map((e) => e.seq),
    all.filter((e) => e.at >= sinceText).map((e) => e.seq),
    'desde in epoch ms: the entries at or after that instant, in the service time zone',
  )
  t.ok(after.entries.some((e) => e.record_id === second._id) && !after.entries.some((e) => e.record_id === first._id))
  const before = await trail(api, `hasta=${since}`)
  t.ok(
    before.entries.some((e) => e.record_id === first._id) && !before.entries.some((e) => e.record_id === second._id),
    'hasta in epoch ms',
  )
  const secondCreated = all.find((e) => e.record_id === second._id && e.action === 'crear')!
  const local = (secondCreated.at as string).slice(0, 19)
  const sameSecond = await trail(api, `desde=${encodeURIComponent(local)}&hasta=${encodeURIComponent(local)}`)
  t.ok(
    sameSecond.entries.some((e) => e.seq === secondCreated.seq) &&
      sameSecond.entries.every((e) => (e.at as string).startsWith(local)),
    'YYYY-MM-DD HH:MM:SS: that whole second, both bounds included',
  )
  const day = local.slice(0, 10)
  const [firstDay, lastDay] = [all[0]!.at.slice(0, 10), all[all.length - 1]!.at.slice(0, 10)]
  t.equal((await trail(api, `desde=${firstDay}&hasta=${lastDay}`)).entries.length, all.length, 'YYYY-MM-DD: whole days')
  t.same((await trail(api, 'hasta=2000-01-01')).entries, [], 'before anything: empty')

  const byId = await trail(api, `usuario=${agente.id}`)
  const byName = await trail(api, `usuario=${agente.username.toUpperCase()}`)
  t.ok(byId.entries.length >= 2 && byId.entries.every((e) => e.user_id === agente.id), 'usuario: the account id')
  t.same(byName.entries, byId.entries, 'usuario: the username, any spelling, finds the same entries')
  t.same((await trail(api, 'usuario=nadie')).entries, [], 'an unknown user: empty')

  t.ok(
    (await trail(api, 'modulo=sanciones')).entries.every((e) => e.module === 'sanciones'),
    'modulo',
  )
  const registro = await trail(api, `registro=${first._id}`)
  t.ok(registro.entries.length >= 1 && registro.entries.every((e) => refersTo(e, first._id)), 'registro')
  t.same(
    (await trail(api, `accion=crear&desde=${since}`)).entries.map((e) => e.record_id),
    [second._id],
    'accion combined with desde',
  )
  const page = await trail(api, `desde=${day}`)
  const paged = await api.request('GET', `/auditoria?desde=${day}&limit=1&offset=1`, { token: await api.adminToken() })
  t.match(
    paged.body.data,
    { total: page.entries.length, limit: 1, offset: 1 },
    'paginated with the total of the filter',
  )
  t.same(paged.body.data.entries[0].seq, page.entries[1]!.seq, 'sorted by seq')

  const bad: [string, string, RegExp][] = [
    ['desde=ayer', 'desde', /milisegundos desde 1970 o AAAA-MM-DD/],
    ['hasta=2026-02-30', 'hasta', /recibido '2026-02-30'/],
    ['desde=2026-11-23%2024:00:00', 'desde', /desde/],
    ['desde=2026-11-23&hasta=2026-11-22', 'hasta', /anterior a 'desde'/],
    ['hasta=99999999999999999999', 'hasta', /hasta/],
    ['usuario=', 'usuario', /vacío/],
    ['registro=a&registro=b', 'registro', /más de una vez/],
    ['accion=volar', 'accion', /uno de: crear/],
    ['campo=nada&valor=x', 'campo', /no nombra ningún campo/],
    ['campo=denuncias.tipo&valor=x', 'campo', /no está cifrado/],
    ['campo=denunciante_dni', 'valor', /necesita 'valor'/],
    ['valor=x', 'campo', /necesita 'campo'/],
    ['dni=1&campo=nif&valor=1', 'dni', /no ambos/],
    ['persona=x', 'persona', /Filtro desconocido 'persona'.*desde, hasta, usuario/],
  ]
  for (const [query, field, message] of bad) {
    const reply = await trail(api, query)
    t.equal(reply.status, 400, `${query}: 400`)
    t.match(reply.body, { success: false, details: [{ field, message }] }, `${query}: names '${field}'`)
  }
})

t.test('dni= finds every entry that wrote, read, returned or searched a record of that person', async (t) => {
  const api = await startTestApi(t)
  const spec = api.service.spec
  const admin = await api.adminToken()
  const agente = await api.userWithRole('agente')
  const dni = markerFor(spec.moduleByName.get('denuncias')!.fieldsByName.get('denunciante_dni')!)
  const other = `${dni}9`
  const denuncia = await api.create('denuncias', { ...VALID['denuncias']!(), denunciante_dni: dni }, agente.token)
  const unrelated = await api.create('denuncias', { ...VALID['denuncias']!(), denunciante_dni: other }, agente.token)
  const sancion = await api.create('sanciones', { ...VALID['sanciones']!(), infractor_dni: dni })
  const persona = await api.create('personal', { ...VALID['personal']!(), nif: dni })
  t.equal((await api.request('GET', `/denuncias/${denuncia._id}`, { token: admin })).status, 200, 'a read')
  t.equal((await api.request('GET', `/denuncias/${unrelated._id}`, { token: admin })).status, 200)
  // Read entries may be written a moment after the answer (read-audit.ts): wait for this one.
  await eventually(
    () => trail(api, `registro=${denuncia._id}&accion=consultar`),
    (r) => r.entries.length > 0,
  )
  t.equal((await api.request('DELETE', `/denuncias/${denuncia._id}`, { token: admin })).status, 200, 'then deleted')

  // Through the API: a list that returns the sancion, a search by the DNI that
  // finds nothing any more (the denuncia is deleted), and a search that finds the sancion.
  t.equal((await api.request('GET', '/sanciones?limit=50', { token: admin })).status, 200, 'a list')
  const zeroHit = await api.request('GET', `/denuncias?denunciante_dni=${encodeURIComponent(dni)}`, { token: admin })
  t.same([zeroHit.status, zeroHit.body.data.total], [200, 0], 'a search by DNI with no hits')
  const hit = await api.request('GET', `/sanciones?infractor_dni=${encodeURIComponent(dni)}`, { token: admin })
  t.same([hit.status, hit.body.data.total], [200, 1], 'a search by DNI that finds the sancion')
  const apiEntries = (r: { entries: Entry[] }) =>
    r.entries.some((e) => e.module === 'denuncias' && e.criteria?.denunciante_dni !== undefined) &&
    r.entries.some((e) => e.module === 'sanciones' && e.criteria?.infractor_dni !== undefined) &&
    r.entries.some(
      (e) =>
        e.module === 'sanciones' &&
        e.criteria?.infractor_dni === undefined &&
        (e.record_ids ?? []).includes(sancion._id),
    )
  const viaApi = await eventually(() => trail(api, `dni=${encodeURIComponent(dni)}&usuario=admin`), apiEntries)
  t.ok(apiEntries(viaApi), "the admin's list returning the sancion and both searches by DNI are found")
  t.notOk(
    viaApi.entries.some(
      (e) =>
        e.action === 'consultar' &&
        e.criteria?.infractor_dni === undefined &&
        e.criteria?.denunciante_dni === undefined &&
        !refersTo(e, sancion._id) &&
        !refersTo(e, denuncia._id) &&
        !refersTo(e, persona._id),
    ),
    'no read that returned none of them',
  )

  // The request entries of D29 as the read path writes them: the ids a list returned,
  // and a search's criteria holding the value only as its blind-index hash.
  const hash = api.service.codec.blindIndexes(dni)[0]!
  const at = formatExactTimestamp(new Date(), spec.service.timezone)
  const base = { userId: agente.id, action: 'consultar' as const, recordId: null, version: null, recordHash: null }
  await api.service.database.db.transaction().execute((trx) =>
    appendAudit({
      database: api.service.database,
      trx,
      at,
      events: [
        { ...base, module: 'sanciones', fields: ['infractor_dni'], recordIds: ['SAN-2026-99998', sancion._id] },
        { ...base, module: 'personal', fields: [], recordIds: [], criteria: { nif: hash } },
        { ...base, module: 'denuncias', fields: [], recordIds: [unrelated._id], criteria: { tipo: 'hurto' } },
      ],
    }),
  )

  const searched = (e: Entry) => JSON.stringify(e.criteria ?? {}).includes(hash)
  const found = await trail(api, `dni=${encodeURIComponent(dni)}`)
  t.equal(found.status, 200)
  const summary = found.entries.map((e) => [e.action, e.module, e.record_id])
  for (const [action, module, id] of [
    ['crear', 'denuncias', denuncia._id],
    ['eliminar', 'denuncias', denuncia._id],
    ['crear', 'sanciones', sancion._id],
    ['crear', 'personal', persona._id],
  ])
    t.ok(
      summary.some(([a, m, r]) => a === action && m === module && r === id),
      `${action} ${module}: found through the blind index (deleted records included)`,
    )
  t.ok(
    found.entries.some((e) => e.action === 'consultar' && e.record_id === denuncia._id) ||
      found.entries.some((e) => e.action === 'consultar' && (e.record_ids ?? []).includes(denuncia._id)),
    "the admin's read of the denuncia",
  )
  t.ok(
    found.entries.some((e) => e.module === 'sanciones' && (e.record_ids ?? []).includes(sancion._id)),
    'a list that returned the sancion (record_ids)',
  )
  t.ok(
    found.entries.some((e) => e.module === 'personal' && e.criteria?.nif === hash),
    'a search for the value that found nothing (criteria hash)',
  )
  t.notOk(
    found.entries.some((e) => refersTo(e, unrelated._id)),
    "nothing of another person's record",
  )
  t.notOk(JSON.stringify(found.body).includes(dni), 'the value itself appears nowhere in the answer')
  t.notOk(JSON.stringify(viaApi.body).includes(dni), 'nor in the searches logged')
  t.same(
    found.entries.map((e) => e.seq),
    [...found.entries.map((e) => e.seq)].sort((a, b) => a - b),
    'sorted by seq',
  )

  const denunciasOnly = await trail(api, `campo=denunciante_dni&valor=${encodeURIComponent(dni)}`)
  t.ok(
    denunciasOnly.entries.length >= 3 && denunciasOnly.entries.every((e) => refersTo(e, denuncia._id) || searched(e)),
    "campo=<field>: that field's records, and searches for the value (the hash is the same in any field)",
  )
  const sanciones = await trail(api, `campo=sanciones.infractor_dni&valor=${encodeURIComponent(dni)}`)
  t.ok(
    sanciones.entries.length >= 2 && sanciones.entries.every((e) => refersTo(e, sancion._id) || searched(e)),
    'campo=<module>.<field>; a search by the same hash is found too',
  )
  t.same(
    (await trail(api, `dni=${encodeURIComponent(dni)}&accion=eliminar`)).entries.map((e) => e.record_id),
    [denuncia._id],
    'combined with accion',
  )
  t.same((await trail(api, 'dni=NADIE-0000')).entries, [], 'a value no record holds and nobody searched: empty')
  const registro = await trail(api, `registro=${sancion._id}`)
  t.ok(
    registro.entries.some((e) => e.record_id === null && e.record_ids.includes(sancion._id)),
    'registro matches the ids a read returned',
  )
  t.equal(
    (await api.request('GET', `/auditoria?dni=${dni}`, { token: agente.token })).status,
    403,
    'the same permission as the rest of the trail',
  )
})
