// Anchoring the audit chain (D34), on both databases: `records audit export` writes a piece of the chain
// that `records audit verify --segment` checks offline (and a tampered file fails); `records
// audit checkpoint` signs the head, and `records audit verify --checkpoint` catches a log
// rewritten since (an old entry edited and every later hash recomputed, which the chain alone
// cannot see) and refuses a checkpoint whose signature does not hold.
import { readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { auditEntryFromRow, hashAuditEntry } from '../../../src/db/audit/log.js'
import { SYSTEM_TABLES } from '../../../src/db/system-tables.js'
import { databaseEnv, REPO_MODULES, startTestApi, VALID, type TestApi } from '../../helpers/api.js'
import { PassThrough } from 'node:stream'
import { parseArgs } from 'node:util'
import { commands } from '../../../src/cli/commands/audit.js'
import type { CommandInput } from '../../../src/cli/command.js'
import { isOperatorError } from '../../../src/errors.js'

/**
 * `records audit <args>` run in this process (a child process per call took 20 s on a loaded
 * 2-core machine): the command's own parsing, its stdout and stderr captured, its exit status.
 */
async function cli(api: TestApi) {
  const env = {
    DATA_DIR: api.dataDir,
    MODULES_FILE: REPO_MODULES,
    ...(await databaseEnv(api.dataDir)),
  }
  return async (...args: string[]) => {
    const command = commands.find((c) => c.name === `${args[0]} ${args[1]}`)!
    const parsed = parseArgs({ args: args.slice(2), options: command.options, allowPositionals: true, strict: true })
    const [stdout, stderr] = [new PassThrough(), new PassThrough()]
    let [out, err] = ['', '']
    stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
    stderr.on('data', (chunk: Buffer) => (err += chunk.toString()))
    const input = {
      values: parsed.values,
      positionals: parsed.positionals,
      env,
      cwd: api.dataDir,
      stdin: process.stdin,
      stdout,
      stderr,
    } as unknown as CommandInput
    let status: number
    try {
      status = await command.run(input)
    } catch (error) {
      if (!isOperatorError(error)) throw error
      err += `records: ${error.message}\n`
      status = error.exitCode
    }
    await new Promise((done) => setImmediate(done))
    return { status, stdout: out, stderr: err }
  }
}

async function populated(t: Test) {
  const api = await startTestApi(t)
  for (const n of [1, 2, 3]) await api.create('equipamiento', { ...VALID['equipamiento']!(), nombre: `Emisora ${n}` })
  return api
}

/** What someone with write access to the database does: edit entry `seq`, then re-chain every hash after it. */
async function rewrite(api: TestApi, seq: number): Promise<void> {
  const { db } = api.service.database
  const rows = await db.selectFrom(SYSTEM_TABLES.audit).selectAll().where('seq', '>=', seq).orderBy('seq').execute()
  const before = await db
    .selectFrom(SYSTEM_TABLES.audit)
    .select('hash')
    .where('seq', '=', seq - 1)
    .executeTakeFirst()
  let prev = String(before?.['hash'])
  for (const row of rows) {
    const entry = auditEntryFromRow(row)
    const { hash: _old, ...content } = {
      ...entry,
      prev_hash: prev,
      user_id: entry.seq === seq ? 'otro' : entry.user_id,
    }
    const hash = hashAuditEntry(content)
    await db
      .updateTable(SYSTEM_TABLES.audit)
      .set({ user_id: content.user_id, prev_hash: prev, hash })
      .where('seq', '=', entry.seq)
      .execute()
    prev = hash
  }
}

t.test('an exported segment verifies offline; a tampered one does not', async (t) => {
  const api = await populated(t)
  const records = await cli(api)
  const { db } = api.service.database
  const all = (await db.selectFrom(SYSTEM_TABLES.audit).selectAll().orderBy('seq').execute()).map(auditEntryFromRow)
  // Entries written together share their `at`: the segment runs from the first entry at or after
  // --desde to the last at or before --hasta.
  const [since, until] = [all[1]!.at, all[all.length - 2]!.at]
  const from = all.find((e) => e.at >= since)!
  const to = all.findLast((e) => e.at <= until)!
  const file = join(api.dataDir, 'tramo.jsonl')
  const exported = await records('audit', 'export', '--desde', since, '--hasta', until, '--out', file)
  t.equal(exported.status, 0, exported.stderr)
  const lines = readFileSync(file, 'utf8').trimEnd().split('\n')
  t.ok(lines.length >= 3, 'a segment of several entries')
  t.same(
    lines.map((l) => JSON.parse(l).seq),
    all.filter((e) => e.seq >= from.seq && e.seq <= to.seq).map((e) => e.seq),
    'the entries of the range, in sequence order, unbroken',
  )
  t.equal(statSync(file).mode & 0o777, 0o600, 'the file is readable by its owner only')
  t.match(exported.stderr, `prev_hash de la primera: ${from.prev_hash}`, 'the link to the entry before the range')
  t.match(exported.stderr, `hash de la última: ${to.seq}:${to.hash}`)

  const verified = await records('audit', 'verify', '--segment', file)
  t.equal(verified.status, 0, verified.stdout)
  t.match(verified.stdout, `Segmento íntegro: ${lines.length} entradas, de la ${from.seq} a la ${to.seq}.`)
  t.match(verified.stdout, `Termina en ${to.seq}:${to.hash}`)

  const csv = join(api.dataDir, 'todo.csv')
  t.equal((await records('audit', 'export', '--format', 'csv', '--out', csv)).status, 0)
  t.match(
    readFileSync(csv, 'utf8'),
    /^seq,at,user_id,action,module,record_id,version,record_hash,fields,prev_hash,hash/,
  )
  const csvVerified = await records('audit', 'verify', '--segment', csv, '--json')
  t.match(JSON.parse(csvVerified.stdout), { ok: true, entries: all.length, last: { seq: all.at(-1)!.seq } }, 'CSV too')

  const edited = lines.map((l, i) => (i === 1 ? l.replace(/"action":"\w+"/, '"action":"eliminar"') : l))
  writeFileSync(file, `${edited.join('\n')}\n`)
  const tampered = await records('audit', 'verify', '--segment', file)
  t.equal(tampered.status, 1)
  t.equal(tampered.stdout.split('\n')[0], `ALTERADO: La entrada ${from.seq + 1} ha sido alterada`)
  writeFileSync(file, `${[lines[0], ...lines.slice(2)].join('\n')}\n`)
  const gap = await records('audit', 'verify', '--segment', file)
  t.equal(gap.status, 1)
  t.match(gap.stdout, `ALTERADO: Faltan entradas entre ${from.seq} y ${from.seq + 2}`, 'a removed line')

  const empty = await records('audit', 'export', '--desde', '2000-01-01', '--hasta', '2000-01-02', '--format', 'jsonl')
  t.same([empty.status, empty.stdout, empty.stderr], [0, '', 'Ninguna entrada de auditoría en ese periodo.\n'])
  t.equal((await records('audit', 'export', '--desde', 'ayer')).status, 2, 'a bad time: usage error')
  t.equal((await records('audit', 'export', '--format', 'xml')).status, 2)
})

t.test('a checkpoint catches a rewritten log that verifies on its own', async (t) => {
  const api = await populated(t)
  const records = await cli(api)
  const file = join(api.dataDir, 'punto.json')
  const signed = await records('audit', 'checkpoint', '--out', file)
  t.equal(signed.status, 0, signed.stderr)
  const keyFile = join(api.dataDir, 'audit-checkpoint.key')
  t.equal(statSync(keyFile).mode & 0o777, 0o600, 'the private key: mode 0600 in DATA_DIR')
  t.ok(statSync(join(api.dataDir, 'audit-checkpoint.pub')).isFile(), 'its public key next to it')
  const checkpoint = JSON.parse(readFileSync(file, 'utf8'))
  const head = await api.service.database.db
    .selectFrom(SYSTEM_TABLES.audit)
    .select(['seq', 'hash'])
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirstOrThrow()
  t.match(checkpoint, {
    tipo: 'municipal-records/punto-de-control-auditoria',
    seq: Number(head['seq']),
    hash: head['hash'],
    entradas: Number(head['seq']),
    huella: /^SHA256:/,
  })
  t.match(signed.stderr, `Huella de la clave pública: ${checkpoint.huella}`)
  t.match(signed.stderr, /Clave de firma creada/)
  const again = await records('audit', 'checkpoint')
  t.equal(JSON.parse(again.stdout).huella, checkpoint.huella, 'the same key signs the next one')
  t.notMatch(again.stderr, /Clave de firma creada/)

  await api.create('equipamiento', VALID['equipamiento']!())
  const ok = await records('audit', 'verify', '--checkpoint', file)
  t.equal(ok.status, 0, ok.stdout)
  t.match(ok.stdout, `firmado con la clave ${checkpoint.huella}: compare esta huella`)

  await rewrite(api, 2)
  t.equal((await records('audit', 'verify')).status, 0, 'the rewritten chain verifies on its own')
  const caught = await records('audit', 'verify', '--checkpoint', file, '--json')
  t.equal(caught.status, 1)
  t.match(JSON.parse(caught.stdout), {
    ok: false,
    problems: [{ kind: 'audit_hash', seq: checkpoint.seq, message: /la cadena fue reescrita desde ahí/ }],
  })
})

t.test('a checkpoint whose signature does not hold is refused', async (t) => {
  const api = await populated(t)
  const records = await cli(api)
  const file = join(api.dataDir, 'punto.json')
  t.equal((await records('audit', 'checkpoint', '--out', file)).status, 0)
  const checkpoint = JSON.parse(readFileSync(file, 'utf8'))

  const forged = join(api.dataDir, 'falso.json')
  writeFileSync(forged, JSON.stringify({ ...checkpoint, entradas: checkpoint.entradas - 1 }))
  const refused = await records('audit', 'verify', '--checkpoint', forged)
  t.equal(refused.status, 1)
  t.match(refused.stdout, /^ALTERADA: La firma del punto de control no es válida/)

  // Signed with another key and carrying that key: the signature holds, but the fingerprint differs.
  const other = join(api.dataDir, 'otra.key')
  const foreign = await records('audit', 'checkpoint', '--key', other)
  t.equal(foreign.status, 0)
  const foreignCheckpoint = JSON.parse(foreign.stdout)
  t.not(foreignCheckpoint.huella, checkpoint.huella)
  writeFileSync(forged, JSON.stringify({ ...foreignCheckpoint, clave_publica: checkpoint.clave_publica }))
  t.equal((await records('audit', 'verify', '--checkpoint', forged)).status, 1, 'a signature under another key')
  writeFileSync(forged, JSON.stringify(foreignCheckpoint))
  const warned = await records('audit', 'verify', '--checkpoint', forged)
  t.match(warned.stdout, `Aviso: la clave de esta máquina es otra (${checkpoint.huella})`)

  writeFileSync(forged, '{"no": "es"}')
  const notOne = await records('audit', 'verify', '--checkpoint', forged)
  t.equal(notOne.status, 1)
  t.match(notOne.stderr, /no es un punto de control/)
})

t.test('audit checkpoint --out into folders that do not exist yet creates them, mode 0700', async (t) => {
  const api = await populated(t)
  const records = await cli(api)
  const file = join(api.dataDir, 'puntos', '2026', 'punto.json')
  const signed = await records('audit', 'checkpoint', '--out', file)
  t.equal(signed.status, 0, signed.stderr)
  t.ok(JSON.parse(readFileSync(file, 'utf8')).huella, 'the checkpoint is written')
  for (const dir of [join(api.dataDir, 'puntos'), join(api.dataDir, 'puntos', '2026')])
    t.equal(statSync(dir).mode & 0o777, 0o700, `${dir}: readable by this user only`)
  t.equal(statSync(file).mode & 0o777, 0o600)
  const again = await records('audit', 'checkpoint', '--out', file)
  t.equal(again.status, 1, 'an existing checkpoint is never overwritten')
})
