// D43: memory while an evidence file streams in and out. A service child of its own (the flags
// of `npm start`, on the run's database) with a copy of modules.yaml whose denuncias.pruebas
// `max_size` admits the file; one denuncia; then a file of `mib` MiB (a PDF signature, then
// pseudo-random bytes made as they are sent: the bench never holds it whole either) posted to
// POST /api/denuncias/{id}/ficheros/pruebas over a socket with its X-SHA256, and downloaded back
// once. The service's resident set is sampled every `sampleMs` from /proc/<pid>/status (VmRSS)
// from before each transfer to `settleMs` after its answer; its VmHWM, reset just before each
// transfer (/proc/<pid>/clear_refs), gives the peak the samples may fall between. A flat
// service shows the same peak increase for 50 MiB as for 200 MiB.
import { createCipheriv, createHash } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { request, type IncomingMessage } from 'node:http'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { parseDocument } from 'yaml'
import { SERVICE_NODE_FLAGS } from '../../src/node-flags.js'
import { startChild } from './processes.js'
import { creatableDenuncia } from './seed.js'

const MIB = 1024 * 1024
const CHUNK = 64 * 1024
const PDF_HEAD = Buffer.from('%PDF-1.7\n')
const FIELD_PATH = ['modules', 'denuncias', 'fields', 'pruebas', 'max_size'] as const

/**
 * `bytes` bytes: `%PDF-1.7\n`, then an AES-256-CTR keystream (fixed key: the same file each
 * time, so its SHA-256 is known before it is sent), in pieces of 64 KiB made as they are asked for.
 */
export function* pdfLikeBytes(bytes: number): Generator<Buffer> {
  const keystream = createCipheriv('aes-256-ctr', Buffer.alloc(32, 7), Buffer.alloc(16))
  const zeros = Buffer.alloc(CHUNK)
  for (let sent = 0; sent < bytes;) {
    const n = Math.min(CHUNK, bytes - sent)
    const piece = keystream.update(zeros.subarray(0, n))
    if (sent === 0) PDF_HEAD.copy(piece, 0, 0, Math.min(n, PDF_HEAD.length))
    sent += n
    yield piece
  }
}

/** The SHA-256 (hex) of `pdfLikeBytes(bytes)`, one piece at a time. */
export function sha256OfPdfLike(bytes: number): string {
  const hash = createHash('sha256')
  for (const piece of pdfLikeBytes(bytes)) hash.update(piece)
  return hash.digest('hex')
}

/** A copy of `modulesFile` at `to` whose denuncias.pruebas max_size is at least `bytes`; the max_size it holds. */
export function writeModulesForUpload(modulesFile: string, to: string, bytes: number): number {
  const document = parseDocument(readFileSync(modulesFile, 'utf8'))
  const shipped = Number(document.getIn(FIELD_PATH))
  if (!Number.isFinite(shipped)) throw new Error(`${modulesFile}: denuncias.pruebas has no max_size`)
  const maxSize = Math.max(shipped, bytes)
  document.setIn(FIELD_PATH, maxSize)
  writeFileSync(to, document.toString())
  return maxSize
}

const rssMiB = (pid: number, key: 'VmRSS' | 'VmHWM'): number | undefined => {
  try {
    const kb = new RegExp(`${key}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
    return kb === undefined ? undefined : Number(kb) / 1024
  } catch {
    return undefined
  }
}

/** Resets VmHWM to the current RSS (Linux 4.0+, a process of the same user); false where it cannot. */
const resetPeak = (pid: number): boolean => {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5')
    return true
  } catch {
    return false
  }
}

export interface TransferFigures {
  /** HTTP status of the answer (201 for an upload, 200 for a download). */
  readonly status: number
  /** The SHA-256 the service answered (upload) or of the bytes received (download). */
  readonly sha256: string
  /** Whether it is the SHA-256 of the bytes sent. */
  readonly sha256Ok: boolean
  readonly bytes: number
  readonly seconds: number
  /** MiB per second, from the first byte sent to the end of the answer. */
  readonly mibPerSecond: number
  readonly rssBeforeMiB: number
  /** The largest VmRSS sample, before to after. */
  readonly rssPeakMiB: number
  /** VmRSS `settleMs` after the answer. */
  readonly rssAfterMiB: number
  /** rssPeakMiB - rssBeforeMiB. */
  readonly peakIncreaseMiB: number
  /**
   * VmHWM after the answer, reset just before the transfer: the peak the samples may miss;
   * undefined where it cannot be reset.
   */
  readonly hwmMiB: number | undefined
  readonly samples: number
  /** The longest gap between two samples (the bench's own loop is busy sending). */
  readonly maxGapMs: number
}

export interface TransferOptions {
  /** The service's API, e.g. `http://127.0.0.1:3000/api`. */
  readonly base: string
  /** The process whose memory is sampled (the service). */
  readonly pid: number
  readonly token: string
  readonly bytes: number
  readonly sampleMs?: number
  readonly settleMs?: number
}

export interface TransferReport {
  readonly recordId: string
  readonly upload: TransferFigures
  readonly download: TransferFigures
}

/** Samples `pid`'s VmRSS every `everyMs` until stopped. */
function sampleRss(pid: number, everyMs: number) {
  const before = rssMiB(pid, 'VmRSS') ?? Number.NaN
  const peakReset = resetPeak(pid)
  let peak = before
  let samples = 1
  let last = performance.now()
  let maxGapMs = 0
  const timer = setInterval(() => {
    const now = performance.now()
    maxGapMs = Math.max(maxGapMs, now - last)
    last = now
    const rss = rssMiB(pid, 'VmRSS')
    if (rss === undefined) return
    samples += 1
    peak = Math.max(peak, rss)
  }, everyMs)
  return {
    stop() {
      clearInterval(timer)
      const after = rssMiB(pid, 'VmRSS') ?? Number.NaN
      const hwm = peakReset ? rssMiB(pid, 'VmHWM') : undefined
      peak = Math.max(peak, after)
      return { before, peak, after, hwm, samples: samples + 1, maxGapMs }
    },
  }
}

async function measured(
  options: TransferOptions,
  transfer: () => Promise<{ status: number; sha256: string; sha256Ok: boolean }>,
): Promise<TransferFigures> {
  const sampler = sampleRss(options.pid, options.sampleMs ?? 50)
  const started = performance.now()
  let stopped: ReturnType<typeof sampler.stop> | undefined
  try {
    const answer = await transfer()
    const seconds = (performance.now() - started) / 1000
    await new Promise((resolve) => setTimeout(resolve, options.settleMs ?? 500))
    const rss = sampler.stop()
    stopped = rss
    return {
      ...answer,
      bytes: options.bytes,
      seconds,
      mibPerSecond: options.bytes / MIB / seconds,
      rssBeforeMiB: rss.before,
      rssPeakMiB: rss.peak,
      rssAfterMiB: rss.after,
      peakIncreaseMiB: rss.peak - rss.before,
      hwmMiB: rss.hwm,
      samples: rss.samples,
      maxGapMs: rss.maxGapMs,
    }
  } finally {
    if (stopped === undefined) sampler.stop()
  }
}

const bodyOf = async (response: IncomingMessage): Promise<string> => {
  let text = ''
  for await (const chunk of response) text += String(chunk)
  return text
}

/** One denuncia, then the file up (POST .../ficheros/pruebas) and down (GET .../pruebas/{n}), each measured. */
export async function measureTransfers(options: TransferOptions): Promise<TransferReport> {
  const { base, token, bytes } = options
  const expected = sha256OfPdfLike(bytes)
  const created = await fetch(`${base}/denuncias`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(creatableDenuncia(1)),
  })
  if (created.status !== 201) throw new Error(`POST /denuncias answered ${created.status}: ${await created.text()}`)
  const recordId = String(((await created.json()) as { data: { _id: string } }).data._id)
  const fileUrl = `${base}/denuncias/${recordId}/ficheros/pruebas`
  let n = 0

  const upload = await measured(options, async () => {
    const outgoing = request(fileUrl, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/pdf',
        'content-length': String(bytes),
        'x-nombre': `bench-${bytes}.pdf`,
        'x-sha256': expected,
      },
    })
    const answered = new Promise<IncomingMessage>((resolve, reject) => {
      outgoing.once('response', resolve)
      outgoing.once('error', reject)
    })
    // An early answer (413, 422) may cut the body short: the answer is what is reported.
    const sent = pipeline(Readable.from(pdfLikeBytes(bytes)), outgoing).catch((error: unknown) => error)
    const response = await answered
    const text = await bodyOf(response)
    await sent
    const status = response.statusCode ?? 0
    if (status !== 201) return { status, sha256: text.slice(0, 300), sha256Ok: false }
    const data = (JSON.parse(text) as { data: { n: number; sha256: string; size: number } }).data
    n = data.n
    return { status, sha256: data.sha256, sha256Ok: data.sha256 === expected && data.size === bytes }
  })
  if (upload.status !== 201) return { recordId, upload, download: upload }

  const download = await measured(options, async () => {
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      request(`${fileUrl}/${n}`, {
        headers: { authorization: `Bearer ${token}`, 'x-motivo': 'Medida de memoria del banco de pruebas' },
      })
        .once('response', resolve)
        .once('error', reject)
        .end()
    })
    const hash = createHash('sha256')
    let received = 0
    for await (const chunk of response as AsyncIterable<Buffer>) {
      hash.update(chunk)
      received += chunk.length
    }
    const sha256 = hash.digest('hex')
    const status = response.statusCode ?? 0
    return {
      status,
      sha256,
      sha256Ok:
        status === 200 &&
        sha256 === expected &&
        received === bytes &&
        response.headers['x-content-sha256'] === expected,
    }
  })
  return { recordId, upload, download }
}

export interface UploadMemoryOptions {
  /** The service's environment (database, data directory, admin password); MODULES_FILE is replaced by a copy. */
  readonly env: Readonly<Record<string, string>>
  readonly root: string
  readonly password: string
  readonly mib: number
  readonly log: (line: string) => void
}

export interface UploadMemoryFigures extends TransferReport {
  readonly mib: number
  /** denuncias.pruebas max_size in the modules.yaml copy the service ran with. */
  readonly maxSize: number
  /** The service's RSS once started, before the denuncia. */
  readonly rssStartedMiB: number | undefined
}

export async function measureUploadMemory(options: UploadMemoryOptions): Promise<UploadMemoryFigures> {
  const bytes = Math.round(options.mib * MIB)
  const dataDir = options.env['DATA_DIR'] ?? ''
  const modulesFile = join(dataDir, 'modules-upload-bench.yaml')
  const maxSize = writeModulesForUpload(
    options.env['MODULES_FILE'] ?? join(options.root, 'modules.yaml'),
    modulesFile,
    bytes,
  )
  const service = await startChild(
    join(options.root, 'dist/src/app/server.js'),
    { ...options.env, MODULES_FILE: modulesFile },
    '/api/health',
    [...SERVICE_NODE_FLAGS],
  )
  try {
    const pid = service.process.pid
    if (pid === undefined) throw new Error('the service child has no pid')
    const rssStartedMiB = rssMiB(pid, 'VmRSS')
    const base = `http://127.0.0.1:${service.port}/api`
    const login = await fetch(`${base}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: options.password }),
    })
    const token = ((await login.json()) as { data: { token: string } }).data.token
    options.log(`evidence file: ${options.mib} MiB up and down (denuncias.pruebas max_size ${maxSize} bytes)`)
    const report = await measureTransfers({ base, pid, token, bytes })
    return { mib: options.mib, maxSize, rssStartedMiB, ...report }
  } finally {
    await service.stop()
  }
}

/** The figures as the bench prints them. */
export function formatUploadMemory(f: UploadMemoryFigures): string {
  const mib = (x: number | undefined) => (x === undefined || Number.isNaN(x) ? 'n/a' : `${x.toFixed(1)} MiB`)
  const line = (name: string, t: TransferFigures, ok: number) =>
    `  ${name.padEnd(9)} ${t.status} ${t.status === ok && t.sha256Ok ? 'SHA-256 right' : 'NOT RIGHT'}  ` +
    `RSS before ${mib(t.rssBeforeMiB)}, peak ${mib(t.rssPeakMiB)} (+${t.peakIncreaseMiB.toFixed(1)}), ` +
    `after ${mib(t.rssAfterMiB)}; VmHWM ${mib(t.hwmMiB)}; ${t.mibPerSecond.toFixed(1)} MiB/s ` +
    `(${t.seconds.toFixed(1)} s; ${t.samples} samples, longest gap ${t.maxGapMs.toFixed(0)} ms)`
  return [
    `Evidence file (D43): ${f.mib} MiB to POST /api/denuncias/${f.recordId}/ficheros/pruebas with X-SHA256 and back, ` +
      `service RSS every 50 ms (denuncias.pruebas max_size ${f.maxSize} bytes in the bench's modules.yaml copy; ` +
      `service at ${mib(f.rssStartedMiB)} once started)`,
    line('upload', f.upload, 201),
    line('download', f.download, 200),
  ].join('\n')
}
