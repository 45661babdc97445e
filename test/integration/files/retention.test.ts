// D41 with D43: a blocked record's files are as blocked as its values, and erasing a record
// erases its files: their rows and keys, and the sealed bytes (SQLite: its folder in DATA_DIR;
// PostgreSQL: its chunks). Both databases.
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { sql } from 'kysely'
import t from 'tap'
import { ON_POSTGRES, startTestApi, VALID, type TestApi } from '../../helpers/api.js'
import { modulesWithCustodian } from '../retention/support.js'

const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(4000, 7)])
const MOTIVO = 'Requerimiento judicial'

const upload = (api: TestApi, id: string, token: string) =>
  api.service.app.inject({
    method: 'POST',
    url: `${api.base}/denuncias/${id}/ficheros/pruebas`,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/pdf', 'x-nombre': 'acta.pdf' },
    payload: pdf,
  })

const get = (api: TestApi, path: string, token: string, headers: Record<string, string> = {}) =>
  api.service.app.inject({
    method: 'GET',
    url: `${api.base}${path}`,
    headers: { authorization: `Bearer ${token}`, ...headers },
  })

const decide = (api: TestApi, id: string, token: string, decision: string) =>
  api.request('POST', `/retencion/denuncias/${id}`, { token, body: { decision, motivo: MOTIVO } })

t.test('D41, D43: files of a blocked record, and of an erased one', async (t) => {
  const api = await startTestApi(t, { env: { MODULES_FILE: modulesWithCustodian(t) } })
  const admin = await api.adminToken()
  const dpd = await api.userWithRole('dpd')
  const custodio = await api.userWithRole('custodio')
  const record = await api.create('denuncias', VALID['denuncias']!())
  const id = String(record._id)
  t.equal((await upload(api, id, admin)).statusCode, 201)
  const file = `/denuncias/${id}/ficheros/pruebas/1`

  await t.test('blocked: no upload for anyone, downloads and custody only with bloqueados and a motivo', async (t) => {
    t.equal((await decide(api, id, dpd.token, 'bloquear')).status, 200)
    const refusedUpload = await upload(api, id, admin)
    t.equal(refusedUpload.statusCode, 403)
    t.equal(refusedUpload.json().error, 'Registro bloqueado')
    for (const path of [file, `${file}/custodia`]) {
      const refused = await get(api, path, admin)
      t.equal(refused.statusCode, 403, `${path}: superadmin without bloqueados`)
      t.equal(refused.json().error, 'Registro bloqueado')
      t.equal((await get(api, path, custodio.token)).statusCode, 400, `${path}: bloqueados without a motivo`)
      t.equal((await get(api, path, custodio.token, { 'x-motivo': MOTIVO })).statusCode, 200, `${path}: with one`)
    }
    const files = await api.service.database.db.selectFrom('_files').select('n').where('record_id', '=', id).execute()
    t.equal(files.length, 1, 'the refused upload kept nothing')
    t.equal((await decide(api, id, dpd.token, 'desbloquear')).status, 200)
    t.equal((await get(api, file, admin)).statusCode, 200, 'unblocked: read as before')
  })

  await t.test('erased: the files, their keys and their bytes go with the record', async (t) => {
    const { db } = api.service.database
    const blobs = (await db.selectFrom('_files').select('blob').where('record_id', '=', id).execute()).map((r) =>
      String(r['blob']),
    )
    t.equal(blobs.length, 1)
    const folder = join(api.dataDir, 'ficheros', 'denuncias', id)
    if (!ON_POSTGRES) t.ok(existsSync(folder), 'SQLite: the sealed file is in DATA_DIR')
    const erased = await decide(api, id, dpd.token, 'suprimir')
    t.equal(erased.status, 200)
    t.equal(
      (await db.selectFrom('_files').selectAll().where('record_id', '=', id).execute()).length,
      0,
      'rows and keys',
    )
    if (ON_POSTGRES) {
      const chunks = await sql<{
        n: string
      }>`select count(*) as n from _file_chunks where blob in (${sql.join(blobs)})`.execute(db)
      t.equal(Number(chunks.rows[0]?.n), 0, 'PostgreSQL: the sealed chunks')
    } else t.notOk(existsSync(folder), 'SQLite: the folder of sealed files')
    t.equal((await get(api, file, admin)).statusCode, 404)
    const verify = await api.service.files.verify(null)
    t.same(
      verify.filter((v) => v.recordId === id),
      [],
      'records files verify no longer knows of them',
    )
  })
})
