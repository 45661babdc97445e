// Security headers on every answer, helmet's values computed once at build time.
// @fastify/helmet rebuilds helmet's middleware (CSP directives parsed again) on every
// request; the headers never vary per request here, so they are collected once from
// helmet itself and set from a plain object.
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import helmet, { type HelmetOptions } from 'helmet'

/** The headers helmet would set for `options`, by lowercase name. */
export function helmetHeaders(options: Readonly<HelmetOptions>): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {}
  const collector = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value)
    },
    removeHeader(name: string) {
      delete headers[name.toLowerCase()]
    },
  }
  let failure: unknown
  helmet(options)({} as IncomingMessage, collector as unknown as ServerResponse, (error?: unknown) => {
    failure = error
  })
  if (failure !== undefined) throw failure
  return headers
}

async function securityHeaders(app: FastifyInstance, options: { helmet: Readonly<HelmetOptions> }): Promise<void> {
  const headers = helmetHeaders(options.helmet)
  app.addHook('onRequest', (_request, reply, done) => {
    void reply.headers(headers)
    done()
  })
}

export default fp(securityHeaders, { name: 'records-security-headers' })
