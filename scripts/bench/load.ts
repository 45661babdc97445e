// One scenario against one target with autocannon: a warm-up, then a fixed duration.
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

async function drive(
  port: number,
  request: LoadRequest,
  options: LoadOptions,
  duration: number,
): Promise<autocannon.Result> {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (options.token !== undefined) headers['authorization'] = `Bearer ${options.token}`
  return autocannon({
    url: `http://127.0.0.1:${port}`,
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
  port: number,
  cpuSeconds: () => number | undefined,
  request: LoadRequest,
  options: LoadOptions,
): Promise<LoadFigures> {
  if (options.warmupSeconds > 0) await drive(port, request, options, options.warmupSeconds)
  const cpuBefore = cpuSeconds()
  const result = await drive(port, request, options, options.durationSeconds)
  const cpuAfter = cpuSeconds()
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
