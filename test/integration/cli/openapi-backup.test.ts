// `records openapi` writes the document the service serves (D3) and
// `records backup` takes the online copy of the README's operators' section.
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import t from 'tap'
import { api, createCli, noStack } from './support.js'

t.test('openapi: stdout or --out, the same document as GET /openapi.json', async (t) => {
  const cli = createCli(t, { BASE_PATH: '/v1' })
  const run = await cli.run(['openapi'])
  t.equal(run.status, 0, run.stderr)
  const printed = JSON.parse(run.stdout)
  t.equal(printed.openapi, '3.1.0')
  t.same(
    printed.servers.map((s: { url: string }) => s.url),
    ['/v1'],
    'the paths hang from BASE_PATH',
  )
  t.ok(printed.paths['/denuncias'])
  const served = await cli.withService(async (service) =>
    (await service.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json(),
  )
  t.same(printed, served, 'what the command writes is what the service serves')

  const out = join(cli.dataDir, 'openapi.json')
  const written = await cli.run(['openapi', '--out', out])
  t.equal(written.status, 0)
  t.same(JSON.parse(readFileSync(out, 'utf8')), printed)
  writeFileSync(out, 'keep me')
  const refused = await cli.run(['openapi', '--out', out])
  t.equal(refused.status, 1)
  t.match(refused.stderr, /ya existe: use --force/)
  t.ok(noStack(refused))
  t.equal(readFileSync(out, 'utf8'), 'keep me')
  t.equal((await cli.run(['openapi', '--out', out, '--force'])).status, 0)
  t.same(JSON.parse(readFileSync(out, 'utf8')), printed)

  const invalid = await cli.run(['openapi'], { env: { MODULES_FILE: join(cli.dataDir, 'missing.yaml') } })
  t.equal(invalid.status, 1)
  t.match(invalid.stderr, /^records: .*el fichero no existe/)
})

t.test('backup: a consistent copy with every record, never over an existing file', async (t) => {
  const cli = createCli(t)
  await cli.withService(async (service, token) => {
    for (let i = 0; i < 3; i++)
      t.equal(
        (
          await api(service, token, 'POST', '/personal', {
            tip: `T${i}`,
            nombre: 'A',
            apellidos: 'B',
            escala: 'oficial',
            nif: `3333333${i}C`,
          })
        ).status,
        201,
      )
  })
  const destination = join(cli.dataDir, 'copias', 'records.db')
  const run = await cli.run(['backup', destination, '--json'])
  t.equal(run.status, 0, run.stderr)
  t.match(JSON.parse(run.stdout), { destination, pages: Number })
  const copy = new BetterSqlite3(destination, { readonly: true })
  t.teardown(() => copy.close())
  t.same(copy.pragma('integrity_check'), [{ integrity_check: 'ok' }])
  t.equal((copy.prepare('select count(*) as n from personal').get() as { n: number }).n, 3)

  const again = await cli.run(['backup', destination])
  t.equal(again.status, 1)
  t.match(again.stderr, /^records: .*ya existe/)
  const fallback = await cli.run(['backup'])
  t.equal(fallback.status, 0)
  t.match(fallback.stdout, /Copia creada: .*backups\/records-.*\.db/)
  t.ok(existsSync(join(cli.dataDir, 'backups')))
  const pg = await cli.run(['backup'], { env: { DATABASE_URL: 'postgres://127.0.0.1/none' } })
  t.equal(pg.status, 1)
  t.match(pg.stderr, /pg_dump/)
})
