// D41: suprimir erases a record: its row, versions, text-search entries and blind index leave
// the database in one transaction, a tombstone and one audit entry stay, the record is 404 for
// everyone, `records audit verify` still passes, and on SQLite the erased values' bytes are in no
// file of DATA_DIR. Bad input changes nothing. Both databases.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { blindIndexColumnOf } from '../../../src/compile/metadata.js'
import { verifyIntegrity } from '../../../src/db/operations/verify-integrity.js'
import { SYSTEM_TABLES } from '../../../src/db/system-tables.js'
import { databaseEnv, ON_POSTGRES, startTestApi, VALID, type Reply, type TestApi } from '../../helpers/api.js'
import { runRecords } from '../../helpers/records-cli.js'
import { modulesWithScopedReviewer } from './support.js'

const error = (reply: Reply) => ({ status: reply.status, success: reply.body.success, error: reply.body.error })

/** Every file under `dir`, as raw bytes. */
function filesOf(dir: string): { path: string; bytes: Buffer }[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? filesOf(path) : [{ path, bytes: readFileSync(path) }]
  })
}
/** The files of `dir` that hold `text`'s UTF-8 bytes. */
const filesHolding = (dir: string, text: string): string[] =>
  filesOf(dir)
    .filter((f) => f.bytes.includes(Buffer.from(text, 'utf8')))
    .map((f) => f.path)

/** How many rows of `table` name the record. */
async function rowsOf(api: TestApi, table: string, id: string, column = 'record_id'): Promise<number> {
  const rows = await api.service.database.db.selectFrom(table).select(column).where(column, '=', id).execute()
  return rows.length
}

t.test('D41: suprimir erases a record everywhere and leaves a tombstone', async (t) => {
  const modulesFile = modulesWithScopedReviewer(t)
  const api = await startTestApi(t, { env: { MODULES_FILE: modulesFile } })
  const admin = await api.adminToken()
  const dpd = await api.userWithRole('dpd')
  const agente = await api.userWithRole('agente', { personal_id: 'PER-2026-00001' })
  // Values found nowhere else: a plain name, a word of a searchable text, an encrypted DNI.
  const name = 'Wenceslaa Quiroga-Borrable'
  const word = 'zqxborrable7731'
  const dni = '99887766Z'
  const record = await api.create('denuncias', {
    ...VALID['denuncias']!(),
    denunciante_nombre: name,
    denunciante_dni: dni,
    descripcion: `Sustracción en el portal ${word}`,
    agente_asignado: 'PER-2026-00002',
  })
  const id = record._id as string
  t.equal((await api.request('PUT', `/denuncias/${id}`, { token: admin, body: { tipo: 'robo' } })).status, 200)
  const kept = await api.create('denuncias', VALID['denuncias']!())
  const dniField = api.service.spec.moduleByName.get('denuncias')!.fieldsByName.get('denunciante_dni')!
  const stored = await api.service.database.db
    .selectFrom('denuncias')
    .select([dniField.column, blindIndexColumnOf('denunciante_dni')])
    .where('_id', '=', id)
    .executeTakeFirstOrThrow()
  const ciphertext = String(stored[dniField.column])
  const blindIndex = String(stored[blindIndexColumnOf('denunciante_dni')])
  const decide = (body: unknown, token = dpd.token, path = `denuncias/${id}`) =>
    api.request('POST', `/retencion/${path}`, { token, body })
  const erasures = async () =>
    (await api.request('GET', '/auditoria?accion=suprimir', { token: admin })).body.data.total as number

  t.test('bad input is a 4xx in the envelope and erases nothing', async (t) => {
    const unknown = await decide({ decision: 'borrar', motivo: 'x' })
    t.same(error(unknown), {
      status: 400,
      success: false,
      error: "Datos inválidos: Decisión desconocida 'borrar': use conservar, bloquear, desbloquear, suprimir",
    })
    t.same(error(await decide({ decision: 'suprimir' })), { status: 400, success: false, error: 'Datos requeridos' })
    t.same(error(await decide({ decision: 'suprimir', motivo: 'x' }, agente.token)), {
      status: 404,
      success: false,
      error: 'Registro no encontrado',
    })
    t.same(error(await decide({ decision: 'suprimir', motivo: 'x' }, dpd.token, 'denuncias/DEN-2026-99999')), {
      status: 404,
      success: false,
      error: 'Registro no encontrado',
    })
    t.equal((await decide({ decision: 'suprimir', motivo: 'x' }, admin, `vehiculos/${id}`)).status, 404)
    const consulta = await api.userWithRole('consulta')
    t.equal((await decide({ decision: 'suprimir', motivo: 'x' }, consulta.token)).status, 403)
    t.equal((await api.request('GET', `/denuncias/${id}`, { token: admin })).status, 200, 'the record is there')
    t.equal(await rowsOf(api, SYSTEM_TABLES.versions, id), 2, 'and its two versions')
    t.equal(await rowsOf(api, SYSTEM_TABLES.tombstones, id), 0, 'no tombstone')
    t.equal(await rowsOf(api, SYSTEM_TABLES.retention, id), 0, 'no retention row left by the attempts')
    t.equal(await erasures(), 0, 'no audit entry')
  })

  const onlySqlite = { skip: ON_POSTGRES && 'PostgreSQL keeps its data outside DATA_DIR' }
  t.test('the values are in the files before the erasure (what the check after looks for)', onlySqlite, async (t) => {
    for (const text of [name, word, ciphertext, blindIndex])
      t.not(filesHolding(api.dataDir, text).length, 0, `${text.slice(0, 20)} is stored`)
  })

  t.test('suprimir: 200 with the tombstone, one audit entry, the record gone from every table', async (t) => {
    const reply = await decide({ decision: 'suprimir', motivo: 'Plazo máximo cumplido' })
    t.equal(reply.status, 200)
    t.match(reply.body.data, {
      module: 'denuncias',
      id,
      erased_by: dpd.id,
      motivo: 'Plazo máximo cumplido',
      basis: /^LO 7\/2021/,
      erased_at: /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/,
    })
    t.same(Object.keys(reply.body.data).sort(), ['basis', 'erased_at', 'erased_by', 'id', 'module', 'motivo'])
    t.equal(await rowsOf(api, 'denuncias', id, '_id'), 0, 'the live row')
    t.equal(await rowsOf(api, SYSTEM_TABLES.versions, id), 0, 'its versions')
    t.equal(await rowsOf(api, SYSTEM_TABLES.retention, id), 0, 'its retention row')
    t.equal(await rowsOf(api, SYSTEM_TABLES.tombstones, id), 1, 'one tombstone')
    t.equal(await erasures(), 1)
    const trail = await api.request('GET', `/auditoria?registro=${id}`, { token: admin })
    t.match(
      trail.body.data.entries.find((e: { action: string }) => e.action === 'suprimir'),
      { user_id: dpd.id, module: 'denuncias', record_id: id, motivo: 'Plazo máximo cumplido', fields: [] },
    )
    const everything = JSON.stringify((await api.request('GET', '/auditoria?limit=1000', { token: admin })).body)
    for (const text of [name, word, dni, ciphertext, blindIndex])
      t.notOk(everything.includes(text), `no audit entry holds ${text.slice(0, 20)}`)
  })

  t.test(
    'SQLite: no file of DATA_DIR holds the erased values, the ciphertext or the blind index',
    onlySqlite,
    async (t) => {
      for (const text of [name, word, ciphertext, blindIndex])
        t.same(filesHolding(api.dataDir, text), [], `${text.slice(0, 20)} is gone`)
    },
  )

  t.test(
    'SQLite: a later erasure in the module (FTS5 secure-delete on) leaves no word, old or new',
    onlySqlite,
    async (t) => {
      const second = await api.create('denuncias', { ...VALID['denuncias']!(), descripcion: 'Hecho wqvantiguo5521' })
      const edited = await api.request('PUT', `/denuncias/${second._id}`, {
        token: admin,
        body: { descripcion: 'Hecho wqvnuevo6632' },
      })
      t.equal(edited.status, 200)
      const erased = await decide({ decision: 'suprimir', motivo: 'Duplicada' }, dpd.token, `denuncias/${second._id}`)
      t.equal(erased.status, 200)
      for (const text of ['wqvantiguo5521', 'wqvnuevo6632']) t.same(filesHolding(api.dataDir, text), [], text)
    },
  )

  t.test('the record is 404 for everyone, its history and versions too; the others are untouched', async (t) => {
    const gone = { status: 404, success: false, error: 'Registro no encontrado' }
    for (const path of [`/denuncias/${id}`, `/denuncias/${id}/historial`, `/denuncias/${id}?version=1`])
      t.same(error(await api.request('GET', path, { token: admin })), gone, path)
    t.same(error(await api.request('PUT', `/denuncias/${id}`, { token: admin, body: { tipo: 'x' } })), gone)
    t.same(error(await api.request('DELETE', `/denuncias/${id}`, { token: admin })), gone)
    t.same(error(await decide({ decision: 'suprimir', motivo: 'Otra vez' })), gone, 'erased once')
    t.same(error(await decide({ decision: 'conservar', motivo: 'Tarde' })), gone)
    const search = await api.request('GET', `/denuncias?q=${word}`, { token: admin })
    t.same(search.body.data.records, [], 'the text search finds nothing')
    const byDni = await api.request('GET', `/denuncias?denunciante_dni=${dni}`, { token: admin })
    t.same(byDni.body.data.records, [], 'the blind index finds nothing')
    const list = await api.request('GET', '/denuncias', { token: admin })
    t.notOk(
      list.body.data.records.some((r: { _id: string }) => r._id === id),
      'the list drops it',
    )
    t.equal(list.body.data.total, list.body.data.records.length, 'and its total')
    t.equal((await api.request('GET', `/denuncias/${kept._id}`, { token: admin })).status, 200)
  })

  t.test('GET /retencion/{module}/{id}: the tombstone; 404 to a scoped role and for an unknown id', async (t) => {
    const reply = await api.request('GET', `/retencion/denuncias/${id}`, { token: dpd.token })
    t.equal(reply.status, 200)
    t.match(reply.body.data, { module: 'denuncias', id, erased_by: dpd.id, motivo: 'Plazo máximo cumplido' })
    t.equal((await api.request('GET', `/retencion/denuncias/${id}`, { token: agente.token })).status, 404)
    t.equal((await api.request('GET', '/retencion/denuncias/DEN-2026-99999', { token: dpd.token })).status, 404)
    const live = await api.request('GET', `/retencion/denuncias/${kept._id}`, { token: dpd.token })
    t.match(live.body.data, { module: 'denuncias', id: kept._id, hold: null, blocked_at: null })
  })

  t.test('records audit verify still passes', async (t) => {
    const report = await verifyIntegrity(api.service.database, api.service.spec, api.service.codec)
    t.same(report.problems, [])
    const cli = await runRecords(
      {
        DATA_DIR: api.dataDir,
        MODULES_FILE: modulesFile,
        RECORDS_ENCRYPTION_KEY: '',
        RECORDS_ENCRYPTION_OLD_KEYS: '',
        ...(await databaseEnv(api.dataDir)),
      },
      ['audit', 'verify', '--json'],
    )
    t.equal(cli.status, 0, cli.stderr)
    t.same(JSON.parse(cli.stdout).problems, [])
  })

  t.test('verify names an erased record whose row comes back', async (t) => {
    const row = await api.service.database.db
      .selectFrom('denuncias')
      .selectAll()
      .where('_id', '=', kept._id)
      .executeTakeFirstOrThrow()
    const copy = Object.fromEntries(Object.entries(row).filter(([k]) => k !== '_row'))
    await api.service.database.db
      .insertInto('denuncias')
      .values({ ...copy, _id: id })
      .execute()
    const report = await verifyIntegrity(api.service.database, api.service.spec, api.service.codec)
    t.match(
      report.problems.filter((p) => p.kind === 'record_erased'),
      [{ module: 'denuncias', recordId: id, message: /fue suprimido .* y vuelve a estar/ }],
    )
    await api.service.database.db.deleteFrom('denuncias').where('_id', '=', id).execute()
  })
})

t.test('D41, D35: a record referenced under on_delete restrict is not erased; a deleted one is', async (t) => {
  const api = await startTestApi(t)
  const admin = await api.adminToken()
  const dpd = await api.userWithRole('dpd')
  const person = await api.create('personal', VALID['personal']!())
  const shift = await api.create('turnos', { ...VALID['turnos']!(), agente_id: person._id })
  const erase = (module: string, id: string) =>
    api.request('POST', `/retencion/${module}/${id}`, {
      token: dpd.token,
      body: { decision: 'suprimir', motivo: 'Fin del plazo' },
    })
  const refused = await erase('personal', person._id)
  t.match(refused, {
    status: 409,
    body: {
      success: false,
      error: 'El registro está referenciado por otros registros y no se puede eliminar',
      details: [{ field: 'turnos.agente_id', message: `Lo referencia ${shift._id} (turnos.agente_id)` }],
    },
  })
  t.equal((await api.request('GET', `/personal/${person._id}`, { token: admin })).status, 200, 'still there')
  t.equal(await rowsOf(api, SYSTEM_TABLES.tombstones, person._id), 0)
  t.equal((await api.request('DELETE', `/turnos/${shift._id}`, { token: admin })).status, 200)
  t.equal((await erase('turnos', shift._id)).status, 200, 'a deleted record is erased too')
  t.equal(await rowsOf(api, 'turnos', shift._id, '_id'), 0)
  t.equal((await erase('personal', person._id)).status, 200, 'no live record references it any more')
  const report = await verifyIntegrity(api.service.database, api.service.spec, api.service.codec)
  t.same(report.problems, [])
})

t.test('D41, D21: an account is erased only once deleted; then its sign-in and token are gone', async (t) => {
  const api = await startTestApi(t)
  const admin = await api.adminToken()
  const dpd = await api.userWithRole('dpd')
  const user = await api.userWithRole('consulta')
  const erase = () =>
    api.request('POST', `/retencion/usuarios/${user.id}`, {
      token: dpd.token,
      body: { decision: 'suprimir', motivo: 'Baja hace más de tres años' },
    })
  const live = await erase()
  t.same(error(live), { status: 409, success: false, error: 'Una cuenta activa no se puede suprimir' })
  t.equal((await api.request('GET', '/me', { token: user.token })).status, 200, 'the refused erasure changed nothing')
  t.equal((await api.request('DELETE', `/usuarios/${user.id}`, { token: admin })).status, 200)
  t.equal((await erase()).status, 200)
  t.equal(await rowsOf(api, 'usuarios', user.id, '_id'), 0)
  t.equal((await api.request('GET', `/usuarios/${user.id}`, { token: admin })).status, 404)
  t.equal((await api.request('GET', '/me', { token: user.token })).status, 401, 'its token is refused')
  const login = await api.request('POST', '/auth/login', { body: { username: user.username, password: user.password } })
  t.equal(login.status, 401, 'and its sign-in')
  const report = await verifyIntegrity(api.service.database, api.service.spec, api.service.codec)
  t.same(report.problems, [])
})
