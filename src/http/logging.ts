// Log options of the app: JSON lines with a request id on each, no secrets.
// Requests are logged as path and query parameter *names*: filter values may be personal data.
import { randomUUID } from 'node:crypto'
import type { FastifyServerOptions } from 'fastify'
import type { IncomingMessage } from 'node:http'

/** Request ids a client may send in `x-request-id`: short and free of log-breaking characters. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:+/=-]{1,128}$/

/** The incoming `x-request-id` when it is sane, a fresh UUID otherwise. */
export function requestIdOf(request: IncomingMessage): string {
  const header = request.headers['x-request-id']
  return typeof header === 'string' && SANE_REQUEST_ID.test(header) ? header : randomUUID()
}

/** Whatever a future log call passes, these never reach a log line (passwords, tokens, bodies). */
export const REDACTED_PATHS: readonly string[] = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'headers.cookie',
  'authorization',
  'req.body',
  'body',
  '*.body',
  'password',
  '*.password',
  'token',
  '*.token',
  'data.token',
]

const requestSerializer = (request: { method: string; url: string; ip: string }) => {
  // Anything logged as `req` goes through here, not only requests: keep what a request line needs.
  if (typeof request?.url !== 'string') return { method: String(request?.method), path: '' }
  const [path = '', query] = request.url.split('?', 2)
  const keys = query === undefined ? undefined : [...new URLSearchParams(query).keys()]
  return { method: request.method, path, ...(keys === undefined ? {} : { query: keys }), remoteAddress: request.ip }
}

/** The caller's logger options (level, stream) with the serializers and redaction above. */
export function loggerOptions(logger: FastifyServerOptions['logger']): FastifyServerOptions['logger'] {
  if (logger === false || logger === undefined) return false
  return {
    ...(typeof logger === 'object' ? logger : {}),
    serializers: { req: requestSerializer },
    redact: { paths: [...REDACTED_PATHS], censor: '[oculto]' },
  }
}
