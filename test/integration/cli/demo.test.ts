// `records demo`: an empty database filled through the store with records of every module of
// modules.yaml, valid for the API, with live references, real DNIs and workflow states; refused
// (nothing written) once the database has records; the same seed gives the same data.
import t, { type Test } from 'tap'
import { ON_POSTGRES, createTestDatabase, urlOf } from '../../helpers/postgres.js'
import { loadModulesConfig } from '../../../src/config/load.js'
import { isValidDni } from '../../../src/cli/demo/spanish-ids.js'
import { REPO_MODULES } from '../../helpers/api.js'
import { api, createCli, type Cli } from './support.js'

/** A CLI on its own SQLite file, or its own PostgreSQL database in the PostgreSQL half. */
const newCli = async (t: Test) => createCli(t, ON_POSTGRES ? { DATABASE_URL: urlOf(await createTestDatabase()) } : {})

const config = loadModulesConfig(REPO_MODULES)
const COUNT = 4

interface DemoRun {
  created: { module: string; records: number }[]
  accounts: { username: string; role: string; password: string }[]
}

/** Every record of every module, as the first superadmin reads it (decrypted). */
async function readAll(cli: Cli): Promise<Map<string, Record<string, unknown>[]>> {
  return cli.withService(async (service, token) => {
    const all = new Map<string, Record<string, unknown>[]>()
    for (const mod of config.modules) {
      const list = await api(service, token, 'GET', `/${mod.name}?limit=1000`)
      all.set(mod.name, list.status === 200 ? list.body.data.records : [])
    }
    return all
  })
}

const entriesOf = async (cli: Cli): Promise<string> => {
  const verify = await cli.run(['audit', 'verify'])
  return `${verify.status} ${/(\d+) entradas/.exec(verify.stdout)?.[1]}`
}

t.test('records demo fills every module with valid, linked records; a second run is refused', async (t) => {
  const cli = await newCli(t)
  await cli.withService(async () => undefined) // the first start creates the first superadmin
  // The installed command: dist/ finds the shipped assets/demo-data.yaml one folder further up.
  const run = await cli.spawn(['demo', '--count', String(COUNT), '--seed', 'pruebas', '--json'])
  t.equal(run.status, 0, run.stderr)
  const result = JSON.parse(run.stdout) as DemoRun
  t.same(result.created.map((c) => c.module).sort(), config.modules.map((m) => m.name).sort(), 'every module')

  const all = await readAll(cli)
  const ids = new Set([...all.values()].flat().map((r) => String(r['_id'])))
  for (const mod of config.modules) {
    const records = all.get(mod.name) ?? []
    const expected = result.created.find((c) => c.module === mod.name)?.records ?? 0
    // The accounts module also holds the first superadmin.
    t.ok(records.length >= expected && expected > 0, `${mod.name}: ${records.length} records listed`)
    for (const field of mod.fields) {
      for (const record of records) {
        const value = record[field.name]
        if (value === undefined || value === null) continue
        if (field.type === 'ref') t.ok(ids.has(String(value)), `${mod.name}.${field.name} -> ${value} is live`)
        if (/(^|_)(dni|nif)$/.test(field.name)) t.ok(isValidDni(String(value)), `${mod.name}.${field.name} ${value}`)
        if (field.enum !== undefined) t.ok(field.enum.includes(String(value)), `${mod.name}.${field.name} in its enum`)
      }
    }
  }
  const states = new Set((all.get('sanciones') ?? []).map((r) => r['estado']))
  t.ok(states.size >= 1, 'states from creation states and allowed moves')

  // Each record reads through GET; a demo account logs in with its printed password.
  await cli.withService(async (service, token) => {
    for (const id of [...ids].slice(0, 40)) {
      const mod = config.modules.find((m) => m.prefix === id.split('-')[0])
      t.equal((await api(service, token, 'GET', `/${mod?.name}/${id}`)).status, 200, `GET ${id}`)
    }
    const [account] = result.accounts
    const login = await service.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { username: account?.username, password: account?.password },
    })
    t.equal(login.statusCode, 200, 'the printed password is the account password')
  })
  t.ok(result.accounts.length > 0)
  t.notOk(
    result.accounts.some((a) => a.role === 'superadmin'),
    'no demo account holds every permission',
  )

  const before = await entriesOf(cli)
  t.match(before, /^0 \d+$/, 'records audit verify passes')
  const again = await cli.run(['demo', '--seed', 'pruebas'])
  t.equal(again.status, 1)
  t.match(again.stderr, /^records: La base de datos ya tiene registros \(en '\w+'\): records demo solo llena/)
  t.equal(await entriesOf(cli), before, 'the refused run wrote nothing')

  // The same seed on another empty database gives the same people.
  const other = await newCli(t)
  await other.withService(async () => undefined)
  t.equal((await other.run(['demo', '--count', String(COUNT), '--seed', 'pruebas'])).status, 0)
  const people = (m: Map<string, Record<string, unknown>[]>) =>
    (m.get('personal') ?? []).map((r) => `${r['tip']} ${r['nombre']} ${r['apellidos']} ${r['nif']}`)
  t.same(people(await readAll(other)), people(all), '--seed repeats the data')
})

t.test('records demo refuses a bad --count, and a database without its first account', async (t) => {
  const cli = await newCli(t)
  const run = await cli.run(['demo', '--count', '0'])
  t.equal(run.status, 1)
  t.match(run.stderr, /--count debe ser un número entero entre 1 y 1000/)
  const first = await cli.run(['demo'])
  t.equal(first.status, 1)
  t.match(first.stderr, /^records: Aún no hay una primera cuenta: arranque el servicio una vez/)
  t.equal(await entriesOf(cli), '0 0', 'nothing written')
})
