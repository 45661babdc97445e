// The running service notices a schema it does not serve: a changed
// modules.yaml, then the database migrated by `records migrate`, each said once in the log
// (warn) and on /health (data.esquema), and nothing applied by the running process.
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { openService } from '../../../src/app/service.js'
import { loadSettings } from '../../../src/app/settings.js'
import { databaseEnv, REPO_MODULES } from '../../helpers/api.js'
import { createCli } from '../cli/support.js'
import { captureLogs } from '../protection/support.js'
import { canonicalJson } from '../../../src/db/canonical.js'

const NEW_MODULE = `
  objetos_perdidos:
    prefix: OBP
    fields:
      descripcion: { type: text, required: true }
`
const pause = () => new Promise((resolve) => setTimeout(resolve, 1100))

t.test('a changed modules.yaml and a migration made elsewhere are reported, not applied', async (t) => {
  const cli = createCli(t)
  const file = join(cli.dataDir, 'modules.yaml')
  copyFileSync(REPO_MODULES, file)
  const logs = captureLogs()
  // On the PostgreSQL pass both the service and `records migrate` use that database.
  const database = await databaseEnv(cli.dataDir)
  const settings = loadSettings({ ...cli.env, ...database, MODULES_FILE: file })
  const service = await openService(settings, { logger: { level: 'info', stream: logs.stream } })
  t.teardown(() => service.close())
  const health = async () => (await service.app.inject({ method: 'GET', url: '/api/health' })).json()
  const warnings = () =>
    logs
      .text()
      .trim()
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { level: number; msg: string })
      .filter((l) => l.level === 40)

  t.same(await health(), { success: true, data: { status: 'ok' } }, 'nothing to say while the schema is the one served')
  writeFileSync(file, `# un comentario nuevo\n${readFileSync(REPO_MODULES, 'utf8')}`)
  await pause()
  t.same(await health(), { success: true, data: { status: 'ok' } }, 'a comment is not a change')

  writeFileSync(file, `${readFileSync(REPO_MODULES, 'utf8')}${NEW_MODULE}`)
  await pause()
  const changed = await health()
  t.match(changed, {
    success: true,
    data: {
      status: 'ok',
      esquema: {
        reinicio_pendiente: true,
        motivos: [
          /^modules\.yaml ha cambiado desde el arranque y pide \d+ cambios de esquema \(véalos con records migrate --dry-run\)/,
        ],
      },
    },
  })
  t.equal(
    (await service.app.inject({ method: 'GET', url: '/api/objetos_perdidos' })).statusCode,
    404,
    'the running service does not apply it',
  )
  await pause()
  await health()
  t.equal(warnings().length, 1, 'said once in the log, at warn')

  const migrated = await cli.run(['migrate'], { env: { MODULES_FILE: file, ...database } })
  t.equal(migrated.status, 0, migrated.stderr)
  await pause()
  t.match((await health()).data.esquema.motivos, [
    /^modules\.yaml ha cambiado/,
    /^la base de datos se ha migrado a otro esquema .* reinícielo$/,
  ])
  t.match(warnings(), [{ msg: /modules\.yaml/ }, { msg: /la base de datos se ha migrado/ }])

  writeFileSync(file, readFileSync(REPO_MODULES, 'utf8'))
  await pause()
  t.match(
    (await health()).data.esquema.motivos,
    [/^la base de datos se ha migrado/],
    'the file restored: only the database remains',
  )
})

t.test('the same schema written with its keys in another order is not a change', async (t) => {
  const cli = createCli(t)
  const database = await databaseEnv(cli.dataDir)
  const settings = loadSettings({ ...cli.env, ...database, MODULES_FILE: REPO_MODULES })
  const service = await openService(settings, { logger: false })
  t.teardown(() => service.close())
  const { db } = service.database
  const row = await db.selectFrom('_schema_state').select('snapshot').where('id', '=', 1).executeTakeFirstOrThrow()
  const reordered = canonicalJson(JSON.parse(String(row['snapshot'])))
  t.not(reordered, String(row['snapshot']), 'the text differs (keys sorted)')
  await db.updateTable('_schema_state').set({ snapshot: reordered }).where('id', '=', 1).execute()
  const health = (await service.app.inject({ method: 'GET', url: '/api/health' })).json()
  t.equal(health.data.esquema, undefined, 'compared by meaning: nothing to report')
})
