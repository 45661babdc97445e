// The live feed under load: 100 subscribers follow sala092 over SSE on a
// service child of its own while one client writes. Measured: events delivered per second
// (every subscriber receives every write, so deliveries = writes x subscribers) and the delay
// from each write to its delivery, p50 and p99 over every (write, subscriber) pair. The delay
// runs from the moment the client sends the POST, so it includes the write itself: an upper
// bound of commit to delivery. Two phases: paced (a write every 50 ms: the delay a board sees)
// and saturated (writers as fast as they go: the throughput).
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { SERVICE_NODE_FLAGS } from '../../src/node-flags.js'
import { startChild } from './processes.js'

export interface LiveFeedOptions {
  /** The service's environment (database, data directory, admin password). */
  readonly env: Readonly<Record<string, string>>
  readonly root: string
  readonly password: string
  readonly subscribers?: number
  readonly seconds?: number
  readonly log: (line: string) => void
}

export interface PhaseFigures {
  readonly writes: number
  readonly eventsPerSecond: number
  readonly p50Ms: number
  readonly p99Ms: number
  /** Deliveries missing at the end (should be 0). */
  readonly missing: number
}

export interface LiveFeedFigures {
  readonly subscribers: number
  readonly paced: PhaseFigures
  readonly saturated: PhaseFigures
}

const percentile = (sorted: readonly number[], p: number): number =>
  sorted.length === 0 ? Number.NaN : (sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] as number)

/** Reads one SSE stream, calling `onRecord` with each event's `descripcion` as it arrives. */
async function follow(url: string, token: string, onRecord: (id: string) => void, signal: AbortSignal): Promise<void> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` }, signal })
  if (response.status !== 200) throw new Error(`GET /eventos answered ${response.status}: ${await response.text()}`)
  const reader = (response.body as ReadableStream<Uint8Array>).getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  void (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read()
        if (done) return
        buffer += decoder.decode(value, { stream: true })
        let at: number
        while ((at = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, at)
          buffer = buffer.slice(at + 2)
          const data = block.split('\n').find((l) => l.startsWith('data: '))
          if (data !== undefined)
            onRecord((JSON.parse(data.slice(6)) as { registro: { descripcion: string } }).registro.descripcion)
        }
      }
    } catch {
      /* aborted at the end */
    }
  })()
}

export async function measureLiveFeed(options: LiveFeedOptions): Promise<LiveFeedFigures> {
  const subscribers = options.subscribers ?? 100
  const seconds = options.seconds ?? 5
  const service = await startChild(
    join(options.root, 'dist/src/app/server.js'),
    { ...options.env, EVENT_STREAMS_PER_USER: String(subscribers), EVENT_STREAMS_PER_INSTANCE: String(subscribers) },
    '/api/health',
    [...SERVICE_NODE_FLAGS],
  )
  const base = `http://127.0.0.1:${service.port}/api`
  const abort = new AbortController()
  try {
    const login = await fetch(`${base}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: options.password }),
    })
    const token = ((await login.json()) as { data: { token: string } }).data.token
    /** When each write was sent, by its `descripcion`. */
    const sent = new Map<string, number>()
    const delays: number[] = []
    let delivered = 0
    let lastDelivery = 0
    const onRecord = (descripcion: string) => {
      const now = performance.now()
      delivered += 1
      lastDelivery = now
      const at = sent.get(descripcion)
      if (at !== undefined) delays.push(now - at)
    }
    await Promise.all(
      Array.from({ length: subscribers }, () =>
        follow(`${base}/eventos?modulos=sala092`, token, onRecord, abort.signal),
      ),
    )
    options.log(`live feed: ${subscribers} subscribers connected`)

    const write = async (n: number): Promise<void> => {
      const descripcion = `Llamada ${n}`
      sent.set(descripcion, performance.now())
      const reply = await fetch(`${base}/sala092`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ tipo_incidencia: 'urgente', descripcion }),
      })
      if (reply.status !== 201) throw new Error(`POST /sala092 answered ${reply.status}: ${await reply.text()}`)
      await reply.arrayBuffer()
    }
    const settle = async (writes: number): Promise<void> => {
      // Every write reaches every subscriber; wait (bounded) for the last deliveries.
      const until = performance.now() + 30_000
      while (delivered < writes * subscribers && performance.now() < until)
        await new Promise((resolve) => setTimeout(resolve, 10))
    }
    const phase = async (run: () => Promise<number>): Promise<PhaseFigures> => {
      delays.length = 0
      delivered = 0
      sent.clear()
      const start = performance.now()
      const writes = await run()
      await settle(writes)
      const sorted = [...delays].sort((a, b) => a - b)
      return {
        writes,
        eventsPerSecond: (delivered / (lastDelivery - start)) * 1000,
        p50Ms: percentile(sorted, 0.5),
        p99Ms: percentile(sorted, 0.99),
        missing: writes * subscribers - delivered,
      }
    }
    let n = 0
    const paced = await phase(async () => {
      const end = performance.now() + seconds * 1000
      let writes = 0
      while (performance.now() < end) {
        const started = performance.now()
        await write(++n)
        writes += 1
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, 50 - (performance.now() - started))))
      }
      return writes
    })
    options.log(
      `live feed paced: ${paced.writes} writes, p50 ${paced.p50Ms.toFixed(1)} ms, p99 ${paced.p99Ms.toFixed(1)} ms`,
    )
    const saturated = await phase(async () => {
      const end = performance.now() + seconds * 1000
      let writes = 0
      await Promise.all(
        Array.from({ length: 4 }, async () => {
          while (performance.now() < end) {
            await write(++n)
            writes += 1
          }
        }),
      )
      return writes
    })
    options.log(
      `live feed saturated: ${saturated.writes} writes, ${saturated.eventsPerSecond.toFixed(0)} events/s delivered, ` +
        `p50 ${saturated.p50Ms.toFixed(1)} ms, p99 ${saturated.p99Ms.toFixed(1)} ms`,
    )
    return { subscribers, paced, saturated }
  } finally {
    abort.abort()
    await service.stop()
  }
}

/** The figures as the bench prints them after its table. */
export function formatLiveFeed(f: LiveFeedFigures): string {
  const line = (name: string, p: PhaseFigures) =>
    `  ${name.padEnd(10)} ${String(p.writes).padStart(6)} writes  ${p.eventsPerSecond.toFixed(0).padStart(7)} events/s  ` +
    `p50 ${p.p50Ms.toFixed(1).padStart(7)} ms  p99 ${p.p99Ms.toFixed(1).padStart(7)} ms  missing ${p.missing}`
  return [
    `Live feed: ${f.subscribers} subscribers of sala092 (GET /eventos), delay from sending the write to delivery`,
    line('paced', f.paced),
    line('saturated', f.saturated),
  ].join('\n')
}
