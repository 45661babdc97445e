// One scenario against one target with autocannon: a warm-up, then a fixed duration. A target
// of several instances (--instances) is one autocannon over their URLs: its connections go
// round-robin over them, and one latency histogram covers them all.
import autocannon from 'autocannon'

export interface LoadRequest {
  readonly method: 'GET' | 'POST'
  readonly path: () => string
  readonly body?: () => string
}

export interface LoadFigures {
  readonly rps: number
  readonly p50: number
  readonly p99: number
  readonly errors: number
  readonly requests: number
  /** CPU time the target process spent per request, in µs: robust to other load on the machine. */
  readonly cpuUsPerRequest: number | undefined
}

export interface LoadOptions {
  readonly connections: number
  readonly durationSeconds: number
  readonly warmupSeconds: number
  readonly token: string | undefined
}

/** Told when the measured window (after the warm-up) opens and closes, e.g. to sample the database. */
export interface LoadWindow {
  opened(): Promise<void>
  closed(): Promise<void>
}

async function drive(
  ports: readonly number[],
  request: LoadRequest,
  options: LoadOptions,
  duration: number,
): Promise<autocannon.Result> {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (options.token !== undefined) headers['authorization'] = `Bearer ${options.token}`
  const urls = ports.map((port) => `http://127.0.0.1:${port}`)
  return autocannon({
    // autocannon takes an array of URLs (README: "More than one URL is allowed"); its types say string.
    url: (urls.length === 1 ? urls[0] : urls) as string,
    connections: options.connections,
    duration,
    headers,
    requests: [
      {
        method: request.method,
        setupRequest: (req) => ({
          ...req,
          path: request.path(),
          ...(request.body === undefined ? {} : { body: request.body() }),
        }),
      },
    ],
  })
}

export async function measureLoad(
  port: number | readonly number[],
  cpuSeconds: () => number | undefined,
  request: LoadRequest,
  options: LoadOptions,
  window?: LoadWindow,
): Promise<LoadFigures> {
  const ports = typeof port === 'number' ? [port] : port
  if (options.warmupSeconds > 0) await drive(ports, request, options, options.warmupSeconds)
  await window?.opened()
  const cpuBefore = cpuSeconds()
  let result: autocannon.Result
  let cpuAfter: number | undefined
  try {
    result = await drive(ports, request, options, options.durationSeconds)
    cpuAfter = cpuSeconds()
  } finally {
    await window?.closed()
  }
  const served = result.requests.total
  return {
    cpuUsPerRequest:
      cpuBefore === undefined || cpuAfter === undefined || served === 0
        ? undefined
        : ((cpuAfter - cpuBefore) * 1e6) / served,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
    requests: result.requests.total,
  }
}
