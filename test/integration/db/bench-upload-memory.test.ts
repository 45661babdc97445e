// D43: the bench's evidence file extra (scripts/bench/upload-memory.ts) reports what happened, on
// the database the suite runs on (SQLite, or PostgreSQL under RECORDS_TEST_DATABASE=postgres):
// the file it makes is the one it hashes, its modules.yaml copy admits the size asked for, and a
// 2 MiB file sent over a real socket to a listening service comes back 201 with its SHA-256 and
// downloads byte for byte, with the memory figures filled. Over a socket the upload's body is the
// request's stream itself, not what app.inject gives: this is also the test that such an upload is
// answered (the NUL guard once walked the stream's object graph forever). Not a speed test.
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { compileService } from '../../../src/compile/service.js'
import { loadModulesConfig } from '../../../src/config/load.js'
import { creatableDenuncia } from '../../../scripts/bench/seed.js'
import {
  measureTransfers,
  pdfLikeBytes,
  sha256OfPdfLike,
  writeModulesForUpload,
} from '../../../scripts/bench/upload-memory.js'
import { REPO_MODULES, startTestApi } from '../../helpers/api.js'
import { ON_POSTGRES } from '../../helpers/postgres.js'

const MIB = 1024 * 1024
const on = ON_POSTGRES ? 'PostgreSQL' : 'SQLite'

t.test('the file is made piece by piece, the same each time, a PDF by its signature', async (t) => {
  for (const bytes of [0, 3, 9, 64 * 1024, 64 * 1024 + 5, 3 * MIB + 1]) {
    const pieces = [...pdfLikeBytes(bytes)]
    const whole = Buffer.concat(pieces)
    t.equal(whole.length, bytes, `${bytes} bytes`)
    t.ok(
      pieces.every((p) => p.length <= 64 * 1024),
      'no piece over 64 KiB',
    )
    t.equal(sha256OfPdfLike(bytes), createHash('sha256').update(whole).digest('hex'), 'its SHA-256 is of those bytes')
    if (bytes >= 9) t.equal(whole.subarray(0, 9).toString(), '%PDF-1.7\n')
  }
  const sample = Buffer.concat([...pdfLikeBytes(MIB)])
  t.ok(Buffer.concat([...pdfLikeBytes(MIB)]).equals(sample), 'the same bytes twice')
  t.ok(new Set(sample.subarray(9, 4105)).size > 200, 'pseudo-random after the signature, not a run of one byte')
})

t.test("the bench's modules.yaml copy admits the file, and only raises max_size", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'records-bench-upload-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const maxSizeIn = (file: string) =>
    compileService(loadModulesConfig(file))
      .moduleByName.get('denuncias')
      ?.fields.find((f) => f.name === 'pruebas')?.def.maxSize
  const shipped = maxSizeIn(REPO_MODULES) as number
  t.ok(shipped > 0)
  const raised = join(dir, 'raised.yaml')
  t.equal(writeModulesForUpload(REPO_MODULES, raised, 200 * MIB), 200 * MIB)
  t.equal(maxSizeIn(raised), 200 * MIB, 'the copy validates and holds 200 MiB')
  const kept = join(dir, 'kept.yaml')
  t.equal(writeModulesForUpload(REPO_MODULES, kept, 2 * MIB), shipped, 'a smaller file keeps the shipped limit')
  t.equal(maxSizeIn(kept), shipped)
})

t.test(`2 MiB up and down over a socket on ${on}: 201, the right SHA-256, memory figures filled`, async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  await api.seedTargets(creatableDenuncia(1), 'denuncias')
  await api.service.app.listen({ port: 0, host: '127.0.0.1' })
  const address = api.service.app.server.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  const bytes = 2 * MIB
  const report = await measureTransfers({
    base: `http://127.0.0.1:${port}${api.base}`,
    pid: process.pid,
    token,
    bytes,
    sampleMs: 10,
    settleMs: 50,
  })
  const expected = sha256OfPdfLike(bytes)
  const { upload, download } = report
  t.equal(upload.status, 201, JSON.stringify(upload))
  t.equal(upload.sha256, expected)
  t.equal(upload.sha256Ok, true)
  t.equal(download.status, 200)
  t.equal(download.sha256, expected, 'the bytes received hash as the bytes sent')
  t.equal(download.sha256Ok, true)
  for (const f of [upload, download]) {
    t.equal(f.bytes, bytes)
    t.ok(f.seconds > 0 && Number.isFinite(f.mibPerSecond) && f.mibPerSecond > 0, `throughput ${f.mibPerSecond}`)
    t.ok(f.rssBeforeMiB > 10 && f.rssBeforeMiB < 4096, `RSS before ${f.rssBeforeMiB} MiB`)
    t.ok(f.rssPeakMiB >= f.rssBeforeMiB && f.rssPeakMiB >= f.rssAfterMiB, 'the peak is the largest sample')
    t.equal(f.peakIncreaseMiB, f.rssPeakMiB - f.rssBeforeMiB)
    t.ok(f.samples >= 2, `${f.samples} samples`)
    if (f.hwmMiB !== undefined) t.ok(f.hwmMiB > 10, 'VmHWM read after its reset')
  }
  const record = await api.request('GET', `/denuncias/${report.recordId}`, { token })
  t.match(record.body.data.pruebas, [{ n: 1, sha256: expected, size: bytes, type: 'application/pdf' }], 'what was kept')
})
