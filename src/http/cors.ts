// CORS (CORS_ORIGINS): the browser origins allowed to call the API; none by default, so a page
// served from elsewhere cannot use a logged-in browser's token. A refused preflight says why
// in the log at info: the browser console only says "blocked by CORS".
import fastifyCors from '@fastify/cors'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'

export interface CorsOptions {
  /** Origins as scheme://host[:port], or `*`; empty: no CORS headers at all. */
  readonly origins: readonly string[]
}

/** Headers a browser client may send and read across origins. */
const CORS_HEADERS = {
  allowedHeaders: ['authorization', 'content-type', 'if-match', 'if-none-match', 'x-motivo', 'x-request-id'],
  exposedHeaders: [
    'etag',
    'retry-after',
    'x-request-id',
    'x-ratelimit-limit',
    'x-ratelimit-remaining',
    'x-ratelimit-reset',
  ],
}

async function cors(app: FastifyInstance, options: CorsOptions): Promise<void> {
  const { origins } = options
  const allowed = (origin: string) => origins.includes('*') || origins.includes(origin)
  app.addHook('onRequest', (request, _reply, done) => {
    const origin = request.headers.origin
    const preflight = request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined
    if (preflight && origin !== undefined && !allowed(origin)) {
      const why =
        origins.length === 0
          ? 'CORS_ORIGINS está vacío: la API no admite llamadas de navegador desde otros orígenes'
          : `'${origin}' no está en CORS_ORIGINS (${origins.join(', ')})`
      request.log.info(
        { origin },
        `CORS: consulta previa rechazada del origen ${origin}: ${why}. Para admitirlo, añádalo a CORS_ORIGINS`,
      )
    }
    done()
  })
  if (origins.length === 0) return
  const origin = origins.includes('*') ? '*' : [...origins]
  await app.register(fastifyCors, { origin, methods: ['GET', 'POST', 'PUT', 'DELETE'], maxAge: 600, ...CORS_HEADERS })
}

export default fp(cors, { name: 'records-cors' })
