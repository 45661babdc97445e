// The live feed: writes of another process or instance reach a subscriber. On SQLite and PostgreSQL.
import { once } from 'node:events'
import { writeFileSync } from 'node:fs'
import { Agent, get, type IncomingMessage } from 'node:http'
import { join } from 'node:path'
import t from 'tap'
import { ADMIN, ON_POSTGRES, REPO_MODULES, startTestApi } from '../../helpers/api.js'
import { spawnRecords } from '../../helpers/records-cli.js'
import { listening, sala } from './support.js'

t.test(
  'a change made by another process reaches the subscriber',
  { skip: ON_POSTGRES && 'SQLite: the CLI on the same file' },
  async (t) => {
    const { api, feed } = await listening(t)
    const stream = await feed('?modulos=sala092', await api.adminToken())
    const file = join(api.dataDir, 'sala.jsonl')
    writeFileSync(file, `${JSON.stringify({ ...sala(), descripcion: 'Desde la línea de órdenes' })}\n`)
    const run = await spawnRecords(
      {
        DATA_DIR: api.dataDir,
        MODULES_FILE: REPO_MODULES,
        ADMIN_USERNAME: ADMIN.username,
        ADMIN_PASSWORD: ADMIN.password,
      },
      ['import', 'sala092', file, '--format', 'jsonl', '--new-ids'],
    )
    t.equal(run.status, 0, run.stderr)
    const event = await stream.next()
    t.equal(event.event, 'crear')
    t.equal(event.data.accion, 'importar')
    t.equal(event.data.registro.descripcion, 'Desde la línea de órdenes')
  },
)

t.test(
  'a write on a second instance reaches a subscriber of the first',
  { skip: !ON_POSTGRES && 'PostgreSQL: two instances on one database' },
  async (t) => {
    const { api, feed } = await listening(t)
    const second = await startTestApi(t, { dataDir: api.dataDir, keepDir: true })
    const stream = await feed('?modulos=sala092', await api.adminToken())
    const created = await second.create('sala092', sala())
    const event = await stream.next()
    t.equal(event.data.id, created._id)
  },
)

t.test('a service that stops ends each live stream with `cerrado` and closes its connection', async (t) => {
  const { api, address } = await listening(t)
  const token = await api.adminToken()
  // A client that keeps its connections for reuse, as browsers do, and never closes this one.
  const agent = new Agent({ keepAlive: true })
  t.teardown(() => agent.destroy())
  const response = await new Promise<IncomingMessage>((resolve, reject) =>
    get(
      `${address}${api.base}/eventos?modulos=sala092`,
      { agent, headers: { authorization: `Bearer ${token}` } },
      resolve,
    ).on('error', reject),
  )
  t.equal(response.statusCode, 200)
  t.equal(response.headers.connection, 'close', 'the connection is not kept once the stream ends')
  let body = ''
  response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk))
  const socketClosed = once(response.socket, 'close')
  await api.service.close()
  await socketClosed
  t.match(body, /event: cerrado\ndata: \{"mensaje":"El servicio se detiene/, 'the stream was told why it ended')
})
