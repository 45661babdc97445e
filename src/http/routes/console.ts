// The browser console's static files at /consola/ (D44, D46): index.html and the hashed
// script and style sheet `npm run build` wrote, read once on the first request and kept in
// memory, gzip beside them. A strict Content-Security-Policy of their own: every script and
// style from this origin, none inline, no frames, no plugins.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { routeNotFound } from '../../errors.js'

export const CONSOLE_PATH = '/consola'

/** Tighter than the API's own (helmet's allows inline styles, which the console never needs). */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ')

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
}

interface ConsoleFile {
  readonly type: string
  readonly body: Buffer
  readonly gzip: Buffer
}

export interface ConsoleRoutesOptions {
  /** The built files' folder (dist/console/). */
  readonly dir: string
  /** BASE_PATH, for the redirect's Location. */
  readonly basePath: string
}

function readFiles(dir: string): ReadonlyMap<string, ConsoleFile> {
  const files = new Map<string, ConsoleFile>()
  for (const name of readdirSync(dir)) {
    const type = TYPES[name.slice(name.lastIndexOf('.'))]
    if (type === undefined) continue
    const body = readFileSync(join(dir, name))
    files.set(name, { type, body, gzip: gzipSync(body, { level: 9 }) })
  }
  return files
}

/** Whether an Accept-Encoding header takes gzip: named (or `*`) with a weight above 0 (RFC 9110 12.5.3). */
export function acceptsGzip(header: string): boolean {
  return header.split(',').some((part) => {
    const [coding = '', ...params] = part.split(';').map((p) => p.trim().toLowerCase())
    const weight = params.find((p) => p.startsWith('q='))
    return (coding === 'gzip' || coding === '*') && (weight === undefined || Number(weight.slice(2)) > 0)
  })
}

export async function consoleRoutes(app: FastifyInstance, { dir, basePath }: ConsoleRoutesOptions): Promise<void> {
  // Its files count under the docs page's looser per-address limit, never the API's budget.
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, rateLimitGroup: 'docs' }
  })
  let files: ReadonlyMap<string, ConsoleFile> | undefined
  const send = (request: FastifyRequest, reply: FastifyReply, name: string) => {
    files ??= readFiles(dir)
    const file = files.get(name)
    if (file === undefined) throw routeNotFound()
    const gzip = acceptsGzip(String(request.headers['accept-encoding'] ?? ''))
    // Hashed names never change content; index.html is asked again each time (it names the current ones).
    const cache = name === 'index.html' ? 'no-cache' : 'public, max-age=31536000, immutable'
    void reply
      .header('content-security-policy', CONSOLE_CSP)
      .header('cache-control', cache)
      .header('vary', 'accept-encoding')
      .type(file.type)
    if (gzip) void reply.header('content-encoding', 'gzip')
    return reply.send(gzip ? file.gzip : file.body)
  }
  const prefix = basePath === '/' ? '' : basePath
  app.get(CONSOLE_PATH, async (_request, reply) => reply.redirect(`${prefix}${CONSOLE_PATH}/`, 301))
  app.get(`${CONSOLE_PATH}/`, async (request, reply) => send(request, reply, 'index.html'))
  app.get<{ Params: { file: string } }>(`${CONSOLE_PATH}/:file`, async (request, reply) =>
    send(request, reply, request.params.file),
  )
}
