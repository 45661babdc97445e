// `records audit verify`: the chain and record hashes checked (D17, D18); the head printed so
// it can be kept off the machine, and --expect-head detects a truncated tail.
import BetterSqlite3 from 'better-sqlite3'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { api, createCli } from './support.js'

async function populated(t: Test) {
  const cli = createCli(t)
  await cli.withService(async (service, token) => {
    for (const n of [1, 2, 3])
      await api(service, token, 'POST', '/equipamiento', { tipo: 'radio', nombre: `Emisora ${n}` })
  })
  return cli
}

const write = (dataDir: string, sql: string) => {
  const db = new BetterSqlite3(join(dataDir, 'records.db'))
  db.exec(sql)
  db.close()
}

t.test('an intact database: exit 0, counts and the chain head', async (t) => {
  const cli = await populated(t)
  const run = await cli.run(['audit', 'verify'])
  t.equal(run.status, 0)
  const head = cli.raw((db) => db.prepare('select seq, hash from _audit order by seq desc limit 1').get()) as {
    seq: number
    hash: string
  }
  t.equal(
    run.stdout,
    `Íntegra: ${head.seq} entradas de auditoría y 4 registros comprobados.\nCabeza de la cadena: ${head.seq}:${head.hash}\n`,
  )
  const json = JSON.parse((await cli.run(['audit', 'verify', '--json'])).stdout)
  t.same(json, { ok: true, entries: head.seq, records: 4, pending: 0, head, problems: [], destroyedKeys: [] })
  t.equal(
    (await cli.run(['audit', 'verify', '--expect-head', `${head.seq}:${head.hash}`])).status,
    0,
    'the recorded head is still there',
  )
  t.match(
    JSON.parse((await cli.run(['audit', 'verify', '--from', '3', '--json'])).stdout),
    { ok: true, entries: head.seq - 2 },
    '--from starts the chain later',
  )
  t.equal((await cli.run(['audit', 'verify', '--from', 'x'])).status, 2)
  t.equal((await cli.run(['audit', 'verify', '--expect-head', 'nope'])).status, 2)
})

t.test('a tampered entry: exit 1 naming the first broken entry', async (t) => {
  const cli = await populated(t)
  write(cli.dataDir, "update _audit set user_id = 'otro' where seq = 2")
  const run = await cli.run(['audit', 'verify'])
  t.equal(run.status, 1)
  t.equal(run.stdout, 'ALTERADA: La entrada 2 ha sido alterada\n')
  const json = JSON.parse((await cli.run(['audit', 'verify', '--json'])).stdout)
  t.match(json, { ok: false, problems: [{ kind: 'audit_hash', seq: 2 }] })
})

t.test('a record changed outside the service: exit 1 naming it', async (t) => {
  const cli = await populated(t)
  write(cli.dataDir, "update equipamiento set nombre = 'Cambiada' where _id like 'EQU-%00002'")
  const run = await cli.run(['audit', 'verify'])
  t.equal(run.status, 1)
  t.match(run.stdout, /^ALTERADA: El registro EQU-\d{4}-00002 no coincide con su _hash/)
})

t.test('a truncated tail passes the chain check but not --expect-head', async (t) => {
  const cli = await populated(t)
  const head = JSON.parse((await cli.run(['audit', 'verify', '--json'])).stdout).head as { seq: number; hash: string }
  // Someone with write access deletes the last record and its entry: the chain alone still links.
  write(cli.dataDir, `delete from _audit where seq = ${head.seq}; delete from equipamiento where _id like 'EQU-%00003'`)
  t.equal(
    (await cli.run(['audit', 'verify'])).status,
    0,
    'the shortened chain is self-consistent (README, Known limits)',
  )
  const run = await cli.run(['audit', 'verify', '--expect-head', `${head.seq}:${head.hash}`])
  t.equal(run.status, 1)
  t.equal(
    run.stdout.split('\n')[0],
    `ALTERADA: La entrada ${head.seq} de la cabeza registrada ya no existe: la cadena fue truncada`,
  )
})
