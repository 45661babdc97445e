// D43: evidence files on both databases: an upload is streamed, checked on its bytes, hashed,
// sealed under a key of its own and listed by a new version of its record; a refused upload
// leaves nothing behind; a download is a logged consultation under the record's rules; every
// step is a custody entry; a stored file altered at rest is caught by the verification.
import { createHash, randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { sql } from 'kysely'
import t from 'tap'
import { ADMIN, databaseEnv, ON_POSTGRES, REPO_MODULES, startTestApi, VALID, type TestApi } from '../../helpers/api.js'
import { runRecords } from '../../helpers/records-cli.js'
import { eventually } from '../protection/support.js'
import { fileFixityJob } from '../../../src/app/file-fixity.js'

const MAX = 1024 * 1024
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')
const pdf = (size: number) => Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(size - 9)])
const png = () => Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(100)])

/**
 * The shipped modules.yaml with a 1 MiB `max_size` on denuncias.pruebas, and a motivo for
 * `consulta`'s reads and `oficial`'s edits.
 */
function fixtureModules(): string {
  const dir = mkdtempSync(join(tmpdir(), 'records-files-'))
  const text = readFileSync(REPO_MODULES, 'utf8')
    .replace('max_size: 52428800', `max_size: ${MAX}`)
    .replace(
      /\n {2}denuncias:\n/,
      '\n  denuncias:\n    motivo_requerido:\n      consultar: [consulta]\n      editar: [oficial]\n',
    )
  const file = join(dir, 'modules.yaml')
  writeFileSync(file, text)
  return file
}

async function upload(
  api: TestApi,
  id: string,
  body: Buffer | Readable,
  {
    token,
    type = 'application/pdf',
    name = 'acta.pdf',
    headers = {},
  }: { token: string; type?: string; name?: string; headers?: Record<string, string> },
) {
  const reply = await api.service.app.inject({
    method: 'POST',
    url: `${api.base}/denuncias/${id}/ficheros/pruebas`,
    headers: { authorization: `Bearer ${token}`, 'content-type': type, 'x-nombre': name, ...headers },
    payload: body,
  })
  return { status: reply.statusCode, body: reply.json() }
}

async function download(api: TestApi, path: string, token: string, headers: Record<string, string> = {}) {
  return api.service.app.inject({
    method: 'GET',
    url: `${api.base}${path}`,
    headers: { authorization: `Bearer ${token}`, ...headers },
  })
}

/** What is stored for a record's files: rows, and blobs (SQLite: files on disk; PostgreSQL: chunks). */
async function stored(api: TestApi, id: string) {
  const { db } = api.service.database
  const rows = await db.selectFrom('_files').selectAll().where('record_id', '=', id).execute()
  if (ON_POSTGRES) {
    const chunks = await sql<{ n: string }>`select count(*) as n from _file_chunks`.execute(db)
    return { rows: rows.length, blobs: Number(chunks.rows[0]?.n) }
  }
  const folder = join(api.dataDir, 'ficheros', 'denuncias', id)
  return { rows: rows.length, blobs: existsSync(folder) ? readdirSync(folder).length : 0 }
}

t.test('D43: evidence files', async (t) => {
  const modulesFile = fixtureModules()
  const api = await startTestApi(t, { env: { MODULES_FILE: modulesFile } })
  const admin = await api.adminToken()
  const record = await api.create('denuncias', VALID['denuncias']!())
  const id = String(record._id)
  const bytes = pdf(700_000) // three sealed segments

  await t.test('an upload is kept, listed by a new version of the record and read back byte for byte', async (t) => {
    const up = await upload(api, id, bytes, {
      token: admin,
      name: 'Acta de inspección.pdf',
      headers: { 'x-sha256': sha(bytes) },
    })
    t.equal(up.status, 201)
    t.same(up.body.data, {
      n: 1,
      sha256: sha(bytes),
      size: bytes.length,
      type: 'application/pdf',
      name: 'Acta de inspección.pdf',
    })
    const got = await api.request('GET', `/denuncias/${id}`, { token: admin })
    t.equal(got.body.data._version, 2, 'one version per upload (D17, D33)')
    t.same(got.body.data.pruebas, [up.body.data])
    const history = await api.request('GET', `/denuncias/${id}/historial`, { token: admin })
    t.ok(history.body.data.entries.some((e: any) => e.action === 'editar' && e.fields.includes('pruebas')))
    const down = await download(api, `/denuncias/${id}/ficheros/pruebas/1`, admin)
    t.equal(down.statusCode, 200)
    t.equal(down.headers['content-type'], 'application/pdf')
    t.match(String(down.headers['content-disposition']), /filename\*=UTF-8''Acta%20de%20inspecci%C3%B3n\.pdf/)
    t.equal(sha(down.rawPayload), sha(bytes), 'the bytes as uploaded')
    const second = await upload(api, id, png(), { token: admin, type: 'image/png', name: 'foto.png' })
    t.equal(second.body.data.n, 2)
    const atRest = ON_POSTGRES
      ? (await sql<{ data: Buffer }>`select data from _file_chunks`.execute(api.service.database.db)).rows.map(
          (r) => r.data,
        )
      : readdirSync(join(api.dataDir, 'ficheros', 'denuncias', id)).map((f) =>
          readFileSync(join(api.dataDir, 'ficheros', 'denuncias', id, f)),
        )
    t.ok(atRest.length > 0)
    t.notOk(
      atRest.some((b) => b.includes(bytes.subarray(100, 132))),
      'encrypted at rest',
    )
  })

  await t.test('the record body cannot write a file field, but may send back what it read (D7)', async (t) => {
    const put = await api.request('PUT', `/denuncias/${id}`, { token: admin, body: { pruebas: [] } })
    t.equal(put.status, 400)
    t.match(put.body.details[0].message, /ficheros\/pruebas/)
    const read = (await api.request('GET', `/denuncias/${id}`, { token: admin })).body.data
    const back = await api.request('PUT', `/denuncias/${id}`, { token: admin, body: { ...read, prioridad: 'alta' } })
    t.equal(back.status, 200, JSON.stringify(back.body))
    t.same(back.body.data.pruebas, read.pruebas, 'the files as they were')
    // Read before a later upload: the first files of the list, sent back unchanged, pass too.
    const stale = await api.request('PUT', `/denuncias/${id}`, {
      token: admin,
      body: { pruebas: read.pruebas.slice(0, 1), prioridad: 'media' },
    })
    t.equal(stale.status, 200, JSON.stringify(stale.body))
    t.same(stale.body.data.pruebas, read.pruebas, 'and change nothing of the files')
    const forged = [{ ...read.pruebas[0], sha256: '0'.repeat(64) }, read.pruebas[1]]
    t.equal((await api.request('PUT', `/denuncias/${id}`, { token: admin, body: { pruebas: forged } })).status, 400)
    const created = await api.request('POST', '/denuncias', {
      token: admin,
      body: { ...VALID['denuncias']!(), pruebas: read.pruebas },
    })
    t.equal(created.status, 400, 'a new record holds no files')
  })

  await t.test('refused uploads keep nothing', async (t) => {
    const before = await stored(api, id)
    const version = (await api.request('GET', `/denuncias/${id}`, { token: admin })).body.data._version
    const wrongDigest = await upload(api, id, pdf(2000), {
      token: admin,
      headers: { 'x-sha256': sha(Buffer.from('otro')) },
    })
    t.equal(wrongDigest.status, 422, 'X-SHA256 mismatch')
    const tooLarge = await upload(api, id, pdf(MAX + 1), { token: admin })
    t.equal(tooLarge.status, 413)
    t.equal(tooLarge.body.success, false)
    const lie = await upload(api, id, png(), { token: admin, type: 'application/pdf' })
    t.equal(lie.status, 422, 'a PNG declared as PDF')
    t.match(lie.body.error, /no es del tipo declarado/)
    const notAllowed = await upload(api, id, Buffer.from('<html></html>'), { token: admin, type: 'text/html' })
    t.equal(notAllowed.status, 415)
    const interrupted = new Readable({ read() {} })
    interrupted.push(pdf(300_000))
    setTimeout(() => interrupted.destroy(new Error('cliente desconectado')), 20)
    const cut = await upload(api, id, interrupted, { token: admin }).catch((error: unknown) => ({
      status: 0,
      body: error,
    }))
    t.not(cut.status, 201, 'an interrupted upload is not kept')
    // The client sees the cut at once; the service removes its temporary file as the stream fails, a moment later.
    const after = await eventually(
      () => stored(api, id),
      (s) => s.rows === before.rows && s.blobs === before.blobs,
      5_000,
    )
    t.same(after, before, 'no row, no blob, no temporary file')
    t.equal((await api.request('GET', `/denuncias/${id}`, { token: admin })).body.data._version, version)
  })

  await t.test('permissions, scope and motivo apply to files as to the record', async (t) => {
    const consulta = await api.userWithRole('consulta')
    const agente = await api.userWithRole('agente', { personal_id: 'PER-2026-00011' })
    t.equal((await upload(api, id, pdf(1000), { token: consulta.token })).status, 403, 'no denuncias.editar')
    t.equal((await upload(api, id, pdf(1000), { token: agente.token })).status, 404, 'outside the agente scope')
    t.equal((await download(api, `/denuncias/${id}/ficheros/pruebas/1`, agente.token)).statusCode, 404)
    t.equal(
      (await download(api, `/denuncias/${id}/ficheros/pruebas/1`, consulta.token)).statusCode,
      400,
      'X-Motivo required',
    )
    const read = await download(api, `/denuncias/${id}/ficheros/pruebas/1`, consulta.token, {
      'x-motivo': 'Diligencia 12/2026',
    })
    t.equal(read.statusCode, 200)
    const oficial = await api.userWithRole('oficial')
    const theirs = await api.create('denuncias', VALID['denuncias']!())
    const unjustified = await upload(api, String(theirs._id), pdf(1000), { token: oficial.token })
    t.equal(unjustified.status, 400, 'motivo_requerido.editar applies to uploads')
    const justified = await upload(api, String(theirs._id), pdf(1000), {
      token: oficial.token,
      headers: { 'x-motivo': 'Acta aportada por el denunciante' },
    })
    t.equal(justified.status, 201)
    const ingest = await api.request('GET', `/denuncias/${theirs._id}/ficheros/pruebas/1/custodia`, { token: admin })
    t.match(ingest.body.data.entries[0], {
      action: 'fichero_ingreso',
      user_id: oficial.id,
      motivo: 'Acta aportada por el denunciante',
    })
    t.equal((await download(api, `/denuncias/${id}/ficheros/pruebas/9`, admin)).statusCode, 404)
    t.equal((await download(api, `/denuncias/${id}/ficheros/observaciones/1`, admin)).statusCode, 404)
    const custody = await api.request('GET', `/denuncias/${id}/ficheros/pruebas/1/custodia`, {
      token: consulta.token,
      headers: { 'x-motivo': 'Diligencia 12/2026' },
    })
    t.equal(custody.status, 200)
    const downloads = custody.body.data.entries.filter((e: any) => e.action === 'fichero_descarga')
    t.ok(downloads.length >= 2)
    t.ok(
      downloads.every((e: any) => e.user_id === null),
      'who downloaded: for auditors only (F2)',
    )
  })

  await t.test('an upload is an edit: a record in a final state takes no more files (D28)', async (t) => {
    const other = await api.create('denuncias', VALID['denuncias']!())
    for (const estado of ['investigacion', 'judicializada'])
      t.equal((await api.request('PUT', `/denuncias/${other._id}`, { token: admin, body: { estado } })).status, 200)
    const chunksBefore = (await stored(api, id)).blobs
    const late = await upload(api, String(other._id), pdf(1000), { token: admin })
    t.equal(late.status, 409)
    t.same(await stored(api, String(other._id)), { rows: 0, blobs: ON_POSTGRES ? chunksBefore : 0 }, 'nothing kept')
  })

  await t.test(
    'custody: the ingest and each download, with who, when and the SHA-256, in the audit chain',
    async (t) => {
      const custody = await api.request('GET', `/denuncias/${id}/ficheros/pruebas/1/custodia`, { token: admin })
      const entries = custody.body.data.entries
      t.equal(entries[0].action, 'fichero_ingreso')
      t.ok(entries.every((e: any) => e.sha256 === sha(bytes) && /^[0-9a-f]{64}$/.test(e.hash)))
      const motivated = entries.find((e: any) => e.action === 'fichero_descarga' && e.motivo === 'Diligencia 12/2026')
      t.ok(motivated?.user_id, 'an auditor sees who downloaded and why')
      const trail = await api.request('GET', `/auditoria?accion=fichero_descarga&registro=${id}`, { token: admin })
      t.equal(trail.status, 200)
    },
  )

  await t.test('verification re-hashes every file and catches one altered at rest', async (t) => {
    const files = api.service.files
    const blobsBefore = (await stored(api, id)).blobs
    t.ok(
      (await files.verify(null)).every((r) => r.ok),
      'intact',
    )
    const row = await api.service.database.db
      .selectFrom('_files')
      .select('blob')
      .where('record_id', '=', id)
      .where('n', '=', 1)
      .executeTakeFirstOrThrow()
    const blob = String(row.blob)
    if (ON_POSTGRES) {
      await sql`update _file_chunks set data = overlay(data placing '\\x00'::bytea from 100 for 1) where blob = ${blob} and seq = 1`.execute(
        api.service.database.db,
      )
    } else {
      const path = join(api.dataDir, 'ficheros', 'denuncias', id, blob)
      const content = readFileSync(path)
      content[300_000] = (content[300_000] ?? 0) ^ 0xff
      writeFileSync(path, content)
    }
    const env = {
      DATA_DIR: api.dataDir,
      MODULES_FILE: modulesFile,
      ADMIN_USERNAME: ADMIN.username,
      ADMIN_PASSWORD: ADMIN.password,
      ...(await databaseEnv(api.dataDir)),
    }
    const run = await runRecords(env, ['files', 'verify', '--json'])
    t.equal(run.status, 1, `records files verify exits 1 on an altered file ${run.stderr}`)
    const report = JSON.parse(run.stdout)
    t.same(
      report.files.filter((r: any) => !r.ok).map((r: any) => [r.recordId, r.n]),
      [[id, 1]],
      'the altered one, and only it',
    )
    t.equal(report.total, 3, 'every stored file')
    const custody = await api.request('GET', `/denuncias/${id}/ficheros/pruebas/1/custodia`, { token: admin })
    t.same(
      custody.body.data.entries.filter((e: any) => e.action === 'fichero_verificacion').map((e: any) => e.result),
      ['correcto', 'alterado'],
    )
    t.equal((await stored(api, id)).blobs, blobsBefore)
  })

  await t.test('records copy stops at a source file altered at rest rather than carry it', async (t) => {
    const env: Record<string, string> = {
      DATA_DIR: api.dataDir,
      MODULES_FILE: modulesFile,
      ADMIN_USERNAME: ADMIN.username,
      ADMIN_PASSWORD: ADMIN.password,
      ...(await databaseEnv(api.dataDir)),
    }
    const from = ON_POSTGRES ? String(env['DATABASE_URL']) : `sqlite:${join(api.dataDir, 'records.db')}`
    const targetDir = mkdtempSync(join(tmpdir(), 'records-files-copy-'))
    const to = `sqlite:${join(targetDir, 'copia.db')}`
    const run = await runRecords(env, ['copy', '--from', from, '--to', to])
    t.equal(run.status, 1)
    t.match(run.stderr, new RegExp(`El fichero denuncias/${id}/pruebas/1 del origen (no se puede leer|está alterado)`))
    t.notOk(existsSync(join(targetDir, 'ficheros')), 'no file of the copy stays behind')
  })

  await t.test("the service's periodic check logs an altered file at error level", async (t) => {
    const errors: { fields: Record<string, unknown>; message: string }[] = []
    const log = {
      error: (fields: Record<string, unknown>, message: string) => errors.push({ fields, message }),
      info: () => undefined,
    } as unknown as Parameters<typeof fileFixityJob>[1]
    const job = fileFixityJob(api.service.files, log)
    t.equal(job.runs, 'one-instance', 'one instance of those sharing the database')
    await job.run()
    t.same(
      errors.map((e) => [e.fields['recordId'], e.fields['n']]),
      [[id, 1]],
    )
    t.match(errors[0]?.message, /alterado/)
  })
  await t.test('a record in a final state refuses an upload before reading its body (F9)', async (t) => {
    const closed = String((await api.create('denuncias', VALID['denuncias']!()))._id)
    for (const estado of ['investigacion', 'judicializada'])
      t.equal((await api.request('PUT', `/denuncias/${closed}`, { token: admin, body: { estado } })).status, 200)
    // A body that never ends: an answer can only come before it is read whole.
    let pulled = 0
    const endless = new Readable({
      read() {
        pulled += 1
        this.push(pulled === 1 ? pdf(64 * 1024) : Buffer.alloc(64 * 1024))
      },
    })
    const refused = await Promise.race([
      upload(api, closed, endless, { token: admin }),
      new Promise<{ status: number; body: unknown }>((resolve) =>
        setTimeout(() => resolve({ status: 0, body: 'sin respuesta en 5 s' }), 5_000),
      ),
    ])
    endless.destroy()
    t.equal(refused.status, 409, `answered without waiting for the body: ${JSON.stringify(refused.body)}`)
    t.match((refused.body as { details?: unknown }).details, [{ field: 'estado' }])
    t.equal((await stored(api, closed)).rows, 0, 'nothing kept')
  })
})
