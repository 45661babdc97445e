// A module added to modules.yaml is served with no code change, and its schema can evolve
// across restarts on the same data: added fields are migrated, removed ones refused.
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { openService } from '../../../src/app/service.js'
import { loadSettings } from '../../../src/app/settings.js'
import { ADMIN, databaseEnv, REPO_MODULES, startTestApi, VALID } from '../../helpers/api.js'

const OBJETOS_PERDIDOS = `
  objetos_perdidos:
    prefix: OBP
    description: Objetos perdidos
    fields:
      descripcion: { type: text, required: true }
      categoria: { type: string, enum: [documentacion, llaves, electronica, otros] }
      fecha_hallazgo: { type: date, default: $now }
      lugar_hallazgo: { type: string }
      propietario_dni: { type: string, encrypted: true }
      valor_estimado: { type: decimal, minimum: 0 }
      estado:
        type: string
        state: true
        index: true
        enum: [en_custodia, devuelto, destruido]
`

const NEW_FIELDS = {
  denuncias: '      numero_diligencias: { type: string }\n',
  objetos_perdidos: '      entregado_a: { type: string, encrypted: true }\n',
}

/** modules.yaml of the repository with a tenth module appended (modules is its last section). */
const withTenthModule = (): string => `${readFileSync(REPO_MODULES, 'utf8').trimEnd()}\n${OBJETOS_PERDIDOS}`

/** The same file with one field more in denuncias and in objetos_perdidos. */
function withNewFields(yaml: string): string {
  const denuncias = yaml.replace(/(\n {2}denuncias:\n(?:.*\n)*? {4}fields:\n)/, `$1${NEW_FIELDS.denuncias}`)
  return `${denuncias.trimEnd()}\n${NEW_FIELDS.objetos_perdidos}`
}

t.test('a tenth module and its evolution, on one data directory', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'records-new-module-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const dataDir = join(dir, 'data')
  const modulesFile = join(dir, 'modules.yaml')
  const env = { MODULES_FILE: modulesFile }
  const clock = () => new Date('2026-06-01T10:00:00Z')
  let kept: { obp: any; obp2: any; den: any }

  t.test('a new module in modules.yaml is served with its prefix, no code change', async (t) => {
    writeFileSync(modulesFile, withTenthModule())
    const api = await startTestApi(t, { env, dataDir, clock })
    const token = await api.adminToken()
    t.ok(api.service.migrated.includes("Crear el módulo 'objetos_perdidos'"), 'the table was created at start')

    const created = await api.request('POST', '/objetos_perdidos', {
      token,
      body: {
        descripcion: 'Cartera marrón',
        categoria: 'documentacion',
        propietario_dni: '12345678Z',
        valor_estimado: 25.5,
      },
    })
    t.equal(created.status, 201)
    t.match(created.body.data, {
      _id: 'OBP-2026-00001',
      descripcion: 'Cartera marrón',
      propietario_dni: '12345678Z',
      valor_estimado: 25.5,
      estado: 'en_custodia',
      fecha_hallazgo: '2026-06-01',
      _version: 1,
      _created: '2026-06-01 12:00:00',
    })
    const obp = created.body.data
    const second = await api.request('POST', '/objetos_perdidos', {
      token,
      body: { descripcion: 'Llavero', categoria: 'llaves' },
    })
    t.equal(second.body.data._id, 'OBP-2026-00002')

    const invalid = await api.request('POST', '/objetos_perdidos', {
      token,
      body: { categoria: 'ropa', color: 'azul' },
    })
    t.equal(invalid.status, 400, 'validated like any module (D5, D7)')
    const missing = await api.request('POST', '/objetos_perdidos', { token, body: { categoria: 'llaves' } })
    t.match(missing.body, { error: 'Datos requeridos', details: [{ field: 'descripcion' }] })

    const got = await api.request('GET', `/objetos_perdidos/${obp._id}`, { token })
    t.same(got.body, { success: true, data: obp })
    t.equal(got.headers['etag'], '"1"')
    const list = await api.request('GET', '/objetos_perdidos?categoria=documentacion', { token })
    t.match(list.body.data, { total: 1, records: [{ _id: obp._id }] })
    const byDni = await api.request('GET', '/objetos_perdidos?propietario_dni=12345678Z', { token })
    t.match(byDni.body.data, { total: 1, records: [{ _id: obp._id }] }, 'encrypted field found through its blind index')
    const row = await api.service.database.db
      .selectFrom('objetos_perdidos')
      .selectAll()
      .where('_id', '=', obp._id)
      .executeTakeFirstOrThrow()
    t.notMatch(JSON.stringify(row), '12345678Z', 'the encrypted field is not stored in plaintext')

    const consulta = await api.userWithRole('consulta')
    t.equal(
      (await api.request('GET', '/objetos_perdidos', { token: consulta.token })).status,
      403,
      'roles grant nothing on it unless modules.yaml says so',
    )

    const updated = await api.request('PUT', `/objetos_perdidos/${obp._id}`, {
      token,
      body: { estado: 'devuelto' },
      headers: { 'if-match': '"1"' },
    })
    t.equal(updated.status, 200)
    t.match(updated.body.data, { estado: 'devuelto', _version: 2, propietario_dni: '12345678Z' })

    const third = await api.request('POST', '/objetos_perdidos', { token, body: { descripcion: 'Paraguas' } })
    const removed = await api.request('DELETE', `/objetos_perdidos/${third.body.data._id}`, { token })
    t.same(removed.body, { success: true, data: { message: 'Registro eliminado' } })
    t.equal((await api.request('GET', `/objetos_perdidos/${third.body.data._id}`, { token })).status, 404)
    t.equal((await api.request('GET', '/objetos_perdidos', { token })).body.data.total, 2)

    const den = await api.create('denuncias', VALID['denuncias']!())
    kept = { obp: updated.body.data, obp2: second.body.data, den }
  })

  t.test('a field added to existing modules is migrated on restart; old records stay', async (t) => {
    writeFileSync(modulesFile, withNewFields(withTenthModule()))
    const api = await startTestApi(t, { env, dataDir, clock })
    const token = await api.adminToken()
    t.ok(
      api.service.migrated.includes("Añadir la columna 'numero_diligencias' a 'denuncias'"),
      'denuncias column added',
    )
    t.ok(
      api.service.migrated.includes("Añadir la columna 'entregado_a' a 'objetos_perdidos'"),
      'objetos_perdidos column added',
    )

    const old = await api.request('GET', `/objetos_perdidos/${kept.obp._id}`, { token })
    t.equal(old.status, 200)
    t.same(
      old.body.data,
      { ...kept.obp, entregado_a: null },
      'the old record is intact, decrypts, and shows the new field empty',
    )
    const oldDen = await api.request('GET', `/denuncias/${kept.den._id}`, { token })
    t.same(oldDen.body.data, { ...kept.den, numero_diligencias: null })
    t.equal(
      (await api.request('GET', '/objetos_perdidos', { token })).body.data.total,
      2,
      'the deleted one stays deleted',
    )

    const set = await api.request('PUT', `/objetos_perdidos/${kept.obp._id}`, {
      token,
      body: { entregado_a: 'María Gil' },
      headers: { 'if-match': '"2"' },
    })
    t.equal(set.status, 200, 'the new field is accepted on an old record')
    t.match(set.body.data, { entregado_a: 'María Gil', _version: 3, propietario_dni: '12345678Z' })
    const den = await api.request('POST', '/denuncias', {
      token,
      body: { ...VALID['denuncias']!(), numero_diligencias: 'DIL-77/2026' },
    })
    t.equal(den.status, 201)
    t.equal(den.body.data.numero_diligencias, 'DIL-77/2026')
    t.equal(den.body.data._id, 'DEN-2026-00002', 'the sequence carried over the restart')
    t.equal(
      (await api.request('POST', '/objetos_perdidos', { token, body: { descripcion: 'Gafas' } })).body.data._id,
      'OBP-2026-00004',
      'never reused (D8)',
    )
    t.same(
      (await api.request('GET', '/denuncias?numero_diligencias=DIL-77/2026', { token })).body.data.total,
      1,
      'and filterable',
    )
  })

  t.test('a removed field makes the start refuse, and nothing is lost', async (t) => {
    const full = withNewFields(withTenthModule())
    const without = full.replace(/\n {6}lugar_hallazgo: \{ type: string \}/, '')
    t.not(without, full, 'the field was taken out')
    const reduced = join(dir, 'modules-reduced.yaml')
    writeFileSync(reduced, without)
    const settings = loadSettings({
      DATA_DIR: dataDir,
      MODULES_FILE: reduced,
      ADMIN_USERNAME: ADMIN.username,
      ADMIN_PASSWORD: ADMIN.password,
      ...(await databaseEnv(dataDir)),
    })
    await t.rejects(openService(settings), /records migrate/, 'refused, pointing at `records migrate`')
    await t.rejects(openService(settings), /lugar_hallazgo/, 'naming the field')

    const api = await startTestApi(t, { env, dataDir, clock })
    const token = await api.adminToken()
    const list = await api.request('GET', '/objetos_perdidos', { token })
    t.equal(list.body.data.total, 3)
    t.match(await api.request('GET', `/objetos_perdidos/${kept.obp2._id}`, { token }), {
      status: 200,
      body: { data: { descripcion: 'Llavero' } },
    })
    t.match(await api.request('GET', `/objetos_perdidos/${kept.obp._id}`, { token }), {
      status: 200,
      body: { data: { entregado_a: 'María Gil', _version: 3 } },
    })
    t.equal((await api.request('GET', '/denuncias', { token })).body.data.total, 2)
  })

  t.test('a removed module makes the start refuse too', async (t) => {
    const reduced = join(dir, 'modules-no-obp.yaml')
    copyFileSync(REPO_MODULES, reduced)
    const settings = loadSettings({
      DATA_DIR: dataDir,
      MODULES_FILE: reduced,
      ADMIN_USERNAME: ADMIN.username,
      ADMIN_PASSWORD: ADMIN.password,
      ...(await databaseEnv(dataDir)),
    })
    await t.rejects(openService(settings), /records migrate/)
    const api = await startTestApi(t, { env, dataDir, clock })
    t.equal(
      (await api.request('GET', '/objetos_perdidos', { token: await api.adminToken() })).body.data.total,
      3,
      'still all there',
    )
  })
})
