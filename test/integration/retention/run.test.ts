// D41: `records retention run` applies the automatic expiries (block past keep_at_most) through
// the same decisions as a person's, skips what refuses, does nothing the second time; the
// service runs it once a day across two instances sharing the database. Both databases.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { userInfo } from 'node:os'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import type { JobClock } from '../../../src/app/job-runner.js'
import { RETENTION_CHECK_MS } from '../../../src/app/retention-job.js'
import { ADMIN, databaseEnv, REPO_MODULES, startTestApi, VALID, type TestApi } from '../../helpers/api.js'
import { manualClock } from '../../helpers/job-clock.js'
import { runRecords } from '../../helpers/records-cli.js'
import { captureLogs } from '../protection/support.js'

const SALA_KEEP = '      keep_at_most: 3y\n'
const SANCIONES_KEEP = '      keep_at_most: 5y\n'

/**
 * The shipped modules.yaml with sala092 blocked past its longest keep (3 years from
 * fecha_hora_entrada) and, with `erase`, sanciones erased past theirs (5 years from fecha_infraccion).
 */
function modulesFile(erase = false): string {
  const dir = mkdtempSync(join(tmpdir(), 'records-retention-run-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const shipped = readFileSync(REPO_MODULES, 'utf8')
  if (!shipped.includes(SALA_KEEP) || !shipped.includes(SANCIONES_KEEP))
    throw new Error('sala092 or sanciones changed their keep_at_most in modules.yaml')
  const file = join(dir, 'modules.yaml')
  let text = shipped.replace(SALA_KEEP, `${SALA_KEEP}      on_expiry: block\n`)
  if (erase) text = text.replace(SANCIONES_KEEP, `${SANCIONES_KEEP}      on_expiry: erase\n`)
  writeFileSync(file, text)
  return file
}

const cliEnv = async (api: TestApi, file: string): Promise<Record<string, string>> => ({
  DATA_DIR: api.dataDir,
  MODULES_FILE: file,
  ADMIN_USERNAME: ADMIN.username,
  ADMIN_PASSWORD: ADMIN.password,
  RECORDS_ENCRYPTION_KEY: '',
  RECORDS_ENCRYPTION_OLD_KEYS: '',
  ...(await databaseEnv(api.dataDir)),
})

const oldCall = () => ({ ...VALID['sala092']!(), fecha_hora_entrada: '2020-05-01 12:00:00' })
const oldFine = (day: string) => ({
  ...VALID['sanciones']!(),
  fecha_infraccion: `2019-01-${day} 00:00:00`,
  // An encrypted value: the record has a data key of its own (D41).
  infractor_dni: `000000${day}T`,
})

/** The audit entries of `action` on `id`, as GET /auditoria answers them. */
async function entries(api: TestApi, action: string, id: string): Promise<Record<string, unknown>[]> {
  const reply = await api.request('GET', `/auditoria?accion=${action}&registro=${id}`, {
    token: await api.adminToken(),
  })
  return reply.body.data.entries
}

/**
 * A job clock on which only the retention job's timers move: the heartbeat's and the schema
 * watch's would tick thousands of times in a day and have nothing to do with this.
 */
function retentionClock() {
  const clock = manualClock(0)
  const jobClock: JobClock = {
    now: clock.now,
    every: (ms, tick) => (ms === RETENTION_CHECK_MS ? clock.every(ms, tick) : () => undefined),
  }
  return { clock, jobClock }
}

interface RunLine {
  readonly level: number
  readonly msg: string
  readonly bloqueados: string[]
  readonly suprimidos: string[]
  readonly acta: string | null
}

/** The daily run's log lines, of each log in turn. */
const retentionLines = (logs: readonly { text: () => string }[]): RunLine[] =>
  logs.flatMap((log) =>
    log
      .text()
      .split('\n')
      .filter((line) => line.includes('"job":"retention-run"'))
      .map((line) => JSON.parse(line) as RunLine),
  )

t.test('D41: retention run blocks what passed keep_at_most (on_expiry: block), once', async (t) => {
  const file = modulesFile()
  const api = await startTestApi(t, { env: { MODULES_FILE: file } })
  const dpd = await api.userWithRole('dpd')
  const expired = await api.create('sala092', oldCall())
  const blockedByHand = await api.create('sala092', { ...oldCall(), fecha_hora_entrada: '2020-06-01 12:00:00' })
  const recent = await api.create('sala092', VALID['sala092']!())
  const fine = await api.create('sanciones', { ...VALID['sanciones']!(), fecha_infraccion: '2019-01-01 00:00:00' })
  const byHand = await api.request('POST', `/retencion/sala092/${blockedByHand._id}`, {
    token: dpd.token,
    body: { decision: 'bloquear', motivo: 'Bloqueo decidido por el DPD' },
  })
  t.equal(byHand.status, 200, 'blocked by a person first')
  const env = await cliEnv(api, file)

  const first = await runRecords(env, ['retention', 'run', '--json'])
  t.equal(first.status, 0, first.stderr)
  const report = JSON.parse(first.stdout)
  t.same(
    report.applied,
    [{ module: 'sala092', id: expired._id, keep_until: '2023-05-01 12:00:00', decision: 'bloquear' }],
    'only the expired call of a block module: not the one blocked already, not the recent one',
  )
  t.same(report.skipped, [])
  t.equal(report.acta, null, 'nothing erased: no acta')
  t.notOk(existsSync(join(api.dataDir, 'actas')), 'no acta folder either')
  t.notOk(JSON.stringify(report).includes(recent._id))
  t.notOk(JSON.stringify(report).includes(fine._id), 'sanciones keep on_expiry: review and wait for a person')

  const [entry, ...more] = await entries(api, 'bloquear', expired._id)
  t.same(more, [], 'one audit entry')
  t.match(entry, {
    action: 'bloquear',
    module: 'sala092',
    record_id: expired._id,
    user_id: `cli:${userInfo().username}`,
    motivo:
      /^Bloqueo automático \(records retention run, D41\): cumplido el plazo máximo de conservación \(keep_at_most 3y\)\. Base: LO 7\/2021, art\. 8/,
  })
  const queue = await api.request('GET', '/retencion?module=sala092', { token: dpd.token })
  t.notOk(
    queue.body.data.entries.some((e: { id: string }) => e.id === expired._id),
    'a blocked record leaves the queue',
  )
  t.equal((await entries(api, 'bloquear', blockedByHand._id)).length, 1, "the person's block, untouched")

  const again = await runRecords(env, ['retention', 'run'])
  t.equal(again.status, 0, again.stderr)
  t.match(
    again.stdout,
    /^Conservación a \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}: nada que bloquear ni suprimir \(ningún registro ha pasado su keep_at_most en un módulo con on_expiry block o erase\)\.\n$/,
    'a second run has nothing to do',
  )
  t.equal((await entries(api, 'bloquear', expired._id)).length, 1, 'and writes nothing')
  t.equal((await runRecords(env, ['retention', 'run', 'extra'])).status, 2, 'no positional arguments')
})

t.test(
  'D41: retention run erases what passed keep_at_most (on_expiry: erase), skips a held record, signs the acta',
  async (t) => {
    const file = modulesFile(true)
    const api = await startTestApi(t, { env: { MODULES_FILE: file } })
    const admin = await api.adminToken()
    const dpd = await api.userWithRole('dpd')
    const [expired, held, deleted, blocked] = [
      await api.create('sanciones', oldFine('01')),
      await api.create('sanciones', oldFine('02')),
      await api.create('sanciones', oldFine('03')),
      await api.create('sanciones', oldFine('04')),
    ]
    const recent = await api.create('sanciones', { ...VALID['sanciones']!(), fecha_infraccion: '2025-06-01 00:00:00' })
    const call = await api.create('sala092', oldCall())
    const decide = (path: string, body: unknown) =>
      api.request('POST', `/retencion/sanciones/${path}`, { token: dpd.token, body })
    t.equal(
      (await decide(`${held._id}/retener`, { referencia: 'DP 123/2026', motivo: 'Recurso pendiente' })).status,
      200,
    )
    t.equal((await decide(blocked._id, { decision: 'bloquear', motivo: 'Bloqueo previo' })).status, 200)
    t.equal((await api.request('DELETE', `/sanciones/${deleted._id}`, { token: admin })).status, 200)
    const env = await cliEnv(api, file)

    // No acta can be written (the folder is a file): nothing is erased, or blocked.
    const notADir = join(api.dataDir, 'no-es-carpeta')
    writeFileSync(notADir, '')
    const refused = await runRecords(env, ['retention', 'run', '--acta-dir', notADir])
    t.equal(refused.status, 1)
    t.match(refused.stderr, `records: No se aplicó nada: No se puede escribir el acta de eliminación en ${notADir}`)
    t.equal((await api.request('GET', `/sanciones/${expired._id}`, { token: admin })).status, 200, 'nothing erased')
    t.same(await entries(api, 'bloquear', call._id), [], 'nothing blocked')

    const keysBeforeRun = await api.service.recordKeys.count()
    const first = await runRecords(env, ['retention', 'run', '--json'])
    t.equal(first.status, 0, first.stderr)
    const report = JSON.parse(first.stdout)
    const erase = (id: string, day: string) => ({
      module: 'sanciones',
      id,
      keep_until: `2024-01-${day} 00:00:00`,
      decision: 'suprimir',
    })
    t.same(
      report.applied,
      [
        erase(expired._id, '01'),
        erase(deleted._id, '03'),
        erase(blocked._id, '04'),
        { module: 'sala092', id: call._id, keep_until: '2023-05-01 12:00:00', decision: 'bloquear' },
      ],
      'a deleted record and a blocked one are erased too; the recent one is not',
    )
    t.same(
      report.skipped,
      [
        {
          ...erase(held._id, '02'),
          reason: 'Registro retenido',
          details: ["Retenido por 'DP 123/2026': levante la retención antes de suprimirlo"],
        },
      ],
      'the held record is skipped, naming its hold',
    )
    t.notOk(JSON.stringify(report).includes(recent._id))
    for (const id of [expired._id, deleted._id, blocked._id]) {
      t.equal((await api.request('GET', `/sanciones/${id}`, { token: admin })).status, 404, `${id} is gone`)
      t.match(
        (await api.request('GET', `/retencion/sanciones/${id}`, { token: dpd.token })).body.data,
        {
          id,
          erased_by: `cli:${userInfo().username}`,
          motivo: /^Supresión automática \(records retention run, D41\): .*keep_at_most 5y.*Base: Ley 39\/2015/,
        },
        'its tombstone',
      )
    }
    t.equal((await api.request('GET', `/sanciones/${held._id}`, { token: admin })).status, 200, 'the held one stays')

    // The acta: in DATA_DIR/actas, the erased ids with their basis, signed, the chain's head after the run.
    const actas = join(api.dataDir, 'actas')
    t.same(readdirSync(actas), [report.acta.slice(actas.length + 1)], 'one acta, the one the run named')
    const acta = JSON.parse(readFileSync(report.acta, 'utf8'))
    t.match(acta, {
      tipo: 'municipal-records/acta-de-eliminacion',
      version: 1,
      fecha: /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}$/,
      zona_horaria: 'Europe/Madrid',
      actor: `cli:${userInfo().username}`,
      total: 3,
    })
    // D41: each erased sanción had its own data key (its DNI and address are encrypted); all three destroyed.
    t.equal(acta.claves_destruidas.length, 3, 'one data key destroyed per erased record')
    t.ok(
      acta.claves_destruidas.every((id: string) => /^[0-9a-f]{16}$/.test(id)),
      'the acta names the destroyed keys by id',
    )
    t.equal(await api.service.recordKeys.count(), keysBeforeRun - 3, 'and the key store no longer holds them')
    t.same(acta.modulos, [
      {
        modulo: 'sanciones',
        base_legal: 'Ley 39/2015 y Ley 40/2015 (procedimiento sancionador); prescripción de la sanción',
        keep_at_most: '5y',
        suprimidos: [expired._id, deleted._id, blocked._id],
      },
    ])
    const { db } = api.service.database
    const erasures = await db.selectFrom('_audit').select(['seq']).where('action', '=', 'suprimir').execute()
    t.equal(erasures.length, 3, 'one audit entry per erasure')
    const headEntry = await db
      .selectFrom('_audit')
      .select(['hash'])
      .where('seq', '=', acta.auditoria.seq)
      .executeTakeFirstOrThrow()
    t.equal(acta.auditoria.hash, headEntry['hash'], "the acta's head is an entry of the chain")
    t.ok(
      erasures.every((e) => Number(e['seq']) <= acta.auditoria.seq),
      'at or after every erasure',
    )
    const verified = await runRecords(env, ['retention', 'acta', report.acta])
    t.equal(verified.status, 0, verified.stdout)
    t.match(
      verified.stdout,
      /^Válida: acta de eliminación del .*: 3 registros suprimidos\.\n {2}sanciones: 3 \(base: Ley 39\/2015/,
    )
    t.equal((await runRecords(env, ['audit', 'verify'])).status, 0, 'the audit chain and the records still verify')

    const again = await runRecords(env, ['retention', 'run', '--json'])
    t.equal(again.status, 0, again.stderr)
    t.match(
      JSON.parse(again.stdout),
      { applied: [], skipped: [{ id: held._id, reason: 'Registro retenido' }], acta: null },
      'a second run erases nothing more and writes no acta; the hold is named again',
    )
    t.equal(readdirSync(actas).length, 1)
  },
)

t.test('D41: the daily run, once across two instances sharing the database', async (t) => {
  const file = modulesFile(true)
  const dataDir = mkdtempSync(join(tmpdir(), 'records-retention-daily-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const { clock, jobClock } = retentionClock()
  const logs = [captureLogs(), captureLogs()]
  const start = (i: 0 | 1) =>
    startTestApi(t, {
      dataDir,
      jobClock,
      env: { MODULES_FILE: file },
      logger: { level: 'info', stream: logs[i]!.stream },
    })
  const first = await start(0)
  const second = await start(1)
  const expired = await first.create('sala092', oldCall())
  const fine = await first.create('sanciones', oldFine('01'))
  const settle = async () => void (await Promise.all([first.service.jobsSettled(), second.service.jobsSettled()]))
  const runLines = () => retentionLines(logs)

  // Both instances look every hour; the first look of the day claims it.
  await clock.advance(RETENTION_CHECK_MS, settle)
  t.equal(runLines().length, 1, 'both looked at the same instant: one ran')
  t.match(runLines(), [{ level: 30, msg: 'conservación (D41): 1 bloqueados, 1 suprimidos, 0 omitidos' }])
  t.same(runLines()[0]?.bloqueados, [`sala092:${expired._id}`])
  t.same(runLines()[0]?.suprimidos, [`sanciones:${fine._id}`])
  const actas = readdirSync(join(dataDir, 'actas'))
  t.equal(actas.length, 1, 'one acta')
  t.equal(join(dataDir, 'actas', actas[0]!), runLines()[0]?.acta, 'the one the log names')
  t.match(JSON.parse(readFileSync(runLines()[0]!.acta!, 'utf8')), {
    actor: 'sistema',
    modulos: [{ modulo: 'sanciones', suprimidos: [fine._id] }],
  })
  t.equal((await first.request('GET', `/sanciones/${fine._id}`, { token: await first.adminToken() })).status, 404)
  t.equal((await entries(first, 'bloquear', expired._id)).length, 1, 'blocked once')
  await clock.advance(22 * RETENTION_CHECK_MS, settle)
  t.equal(runLines().length, 1, 'no second run the same day, on either instance')
  await clock.advance(2 * RETENTION_CHECK_MS, settle)
  // The two instances' logs are read one after the other: the later run may be in either.
  t.same(
    runLines()
      .map((line) => `${line.level} ${line.msg}`)
      .sort(),
    [
      '30 conservación (D41): 1 bloqueados, 1 suprimidos, 0 omitidos',
      '30 conservación (D41): nada que bloquear ni suprimir',
    ],
    'the next day one instance runs it again, with nothing to do',
  )
  t.equal((await entries(first, 'bloquear', expired._id)).length, 1, 'still blocked once')
  t.equal(readdirSync(join(dataDir, 'actas')).length, 1, 'nothing erased the second day: no second acta')
})

t.test('D41: a daily run that cannot write its acta erases nothing and logs at error', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'records-retention-acta-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const notADir = join(dir, 'actas')
  writeFileSync(notADir, '')
  const { clock, jobClock } = retentionClock()
  const log = captureLogs()
  const api = await startTestApi(t, {
    jobClock,
    env: { MODULES_FILE: modulesFile(true), RETENTION_ACTA_DIR: notADir },
    logger: { level: 'info', stream: log.stream },
  })
  const fine = await api.create('sanciones', oldFine('01'))
  await clock.advance(RETENTION_CHECK_MS, () => api.service.jobsSettled())
  t.match(retentionLines([log]), [
    { level: 50, msg: 'conservación (D41): la ejecución diaria se detuvo por un fallo', suprimidos: [] },
  ])
  t.match(log.text(), `No se puede escribir el acta de eliminación en ${notADir}`, 'the log says why')
  t.equal((await api.request('GET', `/sanciones/${fine._id}`, { token: await api.adminToken() })).status, 200)
})
