// D41, D14: a migration that encrypts or decrypts a field of a module with `retention:` keeps the
// record's values under the record's own data key (`r1`), in the live row and in every kept
// version: a field turned encrypted goes under the key the record's other values use (or a new
// one, as a create makes), a field turned plain is read from its `r1` value. An erasure after the
// migration destroys that key, so the migrated values in a copy taken before it cannot be read.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { openEngine } from '../../../src/app/engine.js'
import { loadSettings } from '../../../src/app/settings.js'
import { applyMigration } from '../../../src/db/migrate/apply.js'
import type { Row } from '../../../src/db/database.js'
import { ADMIN, databaseEnv, REPO_MODULES, startTestApi, VALID, type TestApi } from '../../helpers/api.js'

const DNI = '44556677K'
const EMAIL = 'ana.perez@example.org'
const OTHER_EMAIL = 'luis.gomez@example.org'
const HOME = 'Calle Mayor 1'

/** Today's modules.yaml with denuncias' e-mail encrypted and its address plain. */
const evolved = readFileSync(REPO_MODULES, 'utf8')
  .replace(
    '      denunciante_email: { type: string, format: email }',
    '      denunciante_email: { type: string, format: email, encrypted: true }',
  )
  .replace(
    '      denunciante_domicilio: { type: string, encrypted: true }',
    '      denunciante_domicilio: { type: string }',
  )

const stored = async (api: TestApi, id: string): Promise<Row> =>
  api.service.database.db.selectFrom('denuncias').selectAll().where('_id', '=', id).executeTakeFirstOrThrow()

const versionsOf = async (api: TestApi, id: string): Promise<Row[]> =>
  (
    await api.service.database.db
      .selectFrom('_versions')
      .select(['version', 'data'])
      .where('module', '=', 'denuncias')
      .where('record_id', '=', id)
      .orderBy('version')
      .execute()
  ).map((v) => (typeof v['data'] === 'string' ? JSON.parse(v['data']) : v['data']) as Row)

/** `records migrate` of `dataDir` to `modulesFile` (what its command runs): the migration's result. */
async function migrate(dataDir: string, modulesFile: string) {
  const settings = loadSettings({
    DATA_DIR: dataDir,
    MODULES_FILE: modulesFile,
    ADMIN_USERNAME: ADMIN.username,
    ADMIN_PASSWORD: ADMIN.password,
    ...(await databaseEnv(dataDir)),
  })
  const engine = await openEngine(settings, { migrate: false, onReadAuditError: () => {}, onSealError: () => {} })
  try {
    return await applyMigration(engine.database, engine.spec.modules, {
      codec: engine.codec,
      clock: () => new Date(),
      timezone: engine.spec.service.timezone,
    })
  } finally {
    await engine.close()
  }
}

const keyOf = (value: unknown): string | undefined => /^r1\.([0-9a-f]{16})\./.exec(String(value))?.[1]

t.test(
  'D41: a migration encrypts and decrypts under the record keys, and an erasure after it still reaches them',
  async (t) => {
    t.not(evolved.indexOf('format: email, encrypted: true'), -1, 'the scenario encrypts the e-mail')
    t.not(evolved.indexOf('denunciante_domicilio: { type: string }'), -1, 'and decrypts the address')
    const dataDir = mkdtempSync(join(tmpdir(), 'records-record-keys-migrate-'))
    t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
    const evolvedFile = join(dataDir, 'modules-evolved.yaml')
    writeFileSync(evolvedFile, evolved)

    const before = await startTestApi(t, { dataDir })
    const admin = await before.adminToken()
    const keyed = (
      await before.create('denuncias', {
        ...VALID['denuncias']!(),
        denunciante_dni: DNI,
        denunciante_email: EMAIL,
        denunciante_domicilio: HOME,
      })
    )._id as string
    // No encrypted value before the migration: no data key yet.
    const unkeyed = (await before.create('denuncias', { ...VALID['denuncias']!(), denunciante_email: OTHER_EMAIL }))
      ._id as string
    t.equal((await before.request('PUT', `/denuncias/${keyed}`, { token: admin, body: { tipo: 'robo' } })).status, 200)
    const dniColumn = before.service.spec.moduleByName.get('denuncias')!.fieldsByName.get('denunciante_dni')!.column
    const recordKey = keyOf((await stored(before, keyed))[dniColumn])
    t.ok(recordKey, 'the record has a data key')
    t.equal(keyOf((await stored(before, unkeyed))['denunciante_email']), undefined)
    await before.service.close()

    // `records migrate` with the new modules.yaml (what its command runs).
    t.equal((await migrate(dataDir, evolvedFile)).rewritten, 2)

    const api = await startTestApi(t, { dataDir, env: { MODULES_FILE: evolvedFile } })
    const token = await api.adminToken()
    const row = await stored(api, keyed)
    t.equal(keyOf(row['denunciante_email']), recordKey, "the value turned encrypted is under the record's key")
    t.equal(row['denunciante_domicilio'], HOME, 'the value turned plain is its clear text')
    const other = await stored(api, unkeyed)
    t.ok(keyOf(other['denunciante_email']), 'a record without a key gets one, as a create does')
    t.notOk(await api.service.recordKeys.wrappingKeyOf('0000000000000000'))
    t.ok(await api.service.recordKeys.wrappingKeyOf(keyOf(other['denunciante_email'])!), 'stored in the key store')
    const versions = await versionsOf(api, keyed)
    t.equal(versions.length, 2)
    for (const data of versions) {
      t.equal(keyOf(data['denunciante_email']), recordKey, 'each kept version: the e-mail under the record key')
      t.equal(data['denunciante_domicilio'], HOME, 'each kept version: the address in clear')
    }
    t.equal(keyOf((await versionsOf(api, unkeyed))[0]!['denunciante_email']), keyOf(other['denunciante_email']))

    // Read back through the service, the live record and its first version.
    t.match(await api.request('GET', `/denuncias/${keyed}`, { token }), {
      status: 200,
      body: { data: { denunciante_dni: DNI, denunciante_email: EMAIL, denunciante_domicilio: HOME, tipo: 'robo' } },
    })
    t.match(await api.request('GET', `/denuncias/${keyed}?version=1`, { token }), {
      status: 200,
      body: { data: { denunciante_email: EMAIL, denunciante_domicilio: HOME, tipo: 'hurto' } },
    })
    t.match(await api.request('GET', `/denuncias/${unkeyed}`, { token }), {
      status: 200,
      body: { data: { denunciante_email: OTHER_EMAIL } },
    })

    // An erasure destroys the key the migrated values are under: a copy of them cannot be read.
    const spec = api.service.spec.moduleByName.get('denuncias')!
    const copies = [
      { id: keyed, row, versions },
      { id: unkeyed, row: other, versions: await versionsOf(api, unkeyed) },
    ]
    for (const { id } of copies) {
      const erased = await api.request('POST', `/retencion/denuncias/${id}`, {
        token,
        body: { decision: 'suprimir', motivo: 'Plazo cumplido (prueba de migración)' },
      })
      t.equal(erased.status, 200)
    }
    for (const copy of copies) {
      const rows = [
        copy.row,
        ...copy.versions.map((data) => ({ _id: copy.id, ...api.service.codec.fromSnapshot(spec, data) })),
      ]
      await api.service.recordKeys.load(rows)
      for (const stale of rows) {
        const { record, destroyed } = api.service.codec.decodeForRead(spec, stale, true)
        t.ok(destroyed.includes('denunciante_email'), `${copy.id}: the migrated value's key is destroyed`)
        t.equal(record['denunciante_email'], null)
        t.notOk(JSON.stringify(record).includes('@example.org'))
      }
    }
  },
)

t.test(
  'D41: a field renamed and encrypted in one migration goes under the record key in every kept version, its live value cleared or not',
  async (t) => {
    const renamedFile = readFileSync(REPO_MODULES, 'utf8').replace(
      '      denunciante_email: { type: string, format: email }',
      '      correo: { type: string, format: email, encrypted: true, renamed_from: denunciante_email }',
    )
    t.ok(renamedFile.includes('renamed_from: denunciante_email'), 'the scenario renames and encrypts the e-mail')
    const dataDir = mkdtempSync(join(tmpdir(), 'records-record-keys-rename-'))
    t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
    const file = join(dataDir, 'modules-renamed.yaml')
    writeFileSync(file, renamedFile)

    const before = await startTestApi(t, { dataDir })
    const admin = await before.adminToken()
    // Its live e-mail cleared: only the first version holds one, and no encrypted value anywhere.
    const cleared = (await before.create('denuncias', { ...VALID['denuncias']!(), denunciante_email: EMAIL }))
      ._id as string
    const put = await before.request('PUT', `/denuncias/${cleared}`, {
      token: admin,
      body: { denunciante_email: null },
    })
    t.equal(put.status, 200)
    await before.service.close()

    await migrate(dataDir, file)

    const api = await startTestApi(t, { dataDir, env: { MODULES_FILE: file } })
    const [first] = await versionsOf(api, cleared)
    t.notOk('denunciante_email' in (first ?? {}), 'the version holds the new name only')
    t.ok(keyOf(first?.['correo']), 'the first version: the e-mail under a record key (r1), not the service key')
    t.match(await api.request('GET', `/denuncias/${cleared}?version=1`, { token: await api.adminToken() }), {
      status: 200,
      body: { data: { correo: EMAIL } },
    })
  },
)
