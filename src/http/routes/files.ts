// D43: the evidence files of one module (contracts/files.ts): upload, download and custody. The
// upload's body is the file itself, handed to the store as a stream: no parser of this plugin
// reads it whole, so `max_size` is enforced as it arrives and nothing larger ever sits in memory.
import { Readable } from 'node:stream'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { ModuleSpec, ServiceSpec } from '../../compile/types.js'
import type { FileRoute } from '../../contracts/files.js'
import type { ContractFamily } from '../../contracts/route-contract.js'
import type { FileStore } from '../../db/files/store.js'
import { fileNotFound, validationFailed } from '../../errors.js'
import { actingUser, holds } from '../auth.js'
import { serveAuthenticated } from '../contract-route.js'
import { checkMotivo, requestContextOf } from '../motivo.js'

export interface FileRoutesOptions {
  readonly contracts: ContractFamily<FileRoute>
  readonly spec: ModuleSpec
  readonly service: ServiceSpec
  readonly store: FileStore
}

type FileRequest = FastifyRequest<{ Params: { id: string; field: string; n?: string } }>

const NAME_MAX = 255
// eslint-disable-next-line no-control-regex
const UNSAFE_NAME = /[\u0000-\u001f\u007f/\\\u202a-\u202e\u2066-\u2069]/

/** `X-Nombre`, percent-decoded when it is: 400 when absent, too long or holding control characters or slashes. */
function nameOf(request: FastifyRequest): string {
  const raw = request.headers['x-nombre']
  let name = typeof raw === 'string' ? raw.trim() : ''
  try {
    name = decodeURIComponent(name)
  } catch {
    // Not percent-encoded: taken as sent.
  }
  if (name === '' || name.length > NAME_MAX || UNSAFE_NAME.test(name))
    throw validationFailed([
      {
        field: 'x-nombre',
        message: `La cabecera X-Nombre debe dar el nombre del fichero (1 a ${NAME_MAX} caracteres, sin barras ni caracteres de control)`,
      },
    ])
  return name
}

/** `X-SHA256`: 64 hexadecimal digits, or absent. */
function digestOf(request: FastifyRequest): string | undefined {
  const raw = request.headers['x-sha256']
  if (raw === undefined) return undefined
  if (typeof raw !== 'string' || !/^[0-9a-fA-F]{64}$/.test(raw.trim()))
    throw validationFailed([
      { field: 'x-sha256', message: 'X-SHA256 debe ser un SHA-256 en hexadecimal (64 caracteres)' },
    ])
  return raw.trim().toLowerCase()
}

/** `n` of the path: a positive integer, else 404 (no such file). */
function numberOf(request: FileRequest): number {
  const n = request.params.n ?? ''
  if (!/^[1-9][0-9]{0,8}$/.test(n)) throw fileNotFound()
  return Number(n)
}

/** `attachment` with an ASCII fallback and the name itself as RFC 5987/6266 `filename*`. */
const dispositionOf = (name: string): string =>
  `attachment; filename="${name.replace(/[^\x20-\x7e]|["\\]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(name)}`

export async function fileRoutes(app: FastifyInstance, options: FileRoutesOptions): Promise<void> {
  const { spec, service, store } = options
  const { routes } = options.contracts
  // Any type reaches the handler as the request's stream; the store checks it against the field.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload))

  serveAuthenticated(app, routes.upload, async (request: FileRequest, reply, auth) => {
    const context = requestContextOf(request)
    checkMotivo(spec, auth, 'editar', context)
    const type = (request.headers['content-type'] ?? '').split(';', 1)[0]?.trim().toLowerCase() ?? ''
    const name = nameOf(request)
    const sha256 = digestOf(request)
    const body = (request.body as AsyncIterable<Buffer> | undefined) ?? request.raw
    const file = await store.upload(spec, request.params.id, request.params.field, body, {
      actor: auth.account.id,
      reveal: false,
      user: actingUser(auth),
      request: context,
      type,
      name,
      sha256,
    })
    void reply.code(201)
    return { success: true, data: file }
  })

  serveAuthenticated(app, routes.download, async (request: FileRequest, reply, auth) => {
    const context = requestContextOf(request)
    checkMotivo(spec, auth, 'consultar', context)
    const { file, bytes } = await store.download(spec, request.params.id, request.params.field, numberOf(request), {
      actor: auth.account.id,
      reveal: false,
      readBlocked: holds(auth, spec.permissions.bloqueados),
      user: actingUser(auth),
      request: context,
    })
    void reply
      .header('content-type', file.type)
      .header('content-length', String(file.size))
      .header('content-disposition', dispositionOf(file.name))
      .header('x-content-sha256', file.sha256)
      // The bytes are evidence to keep, never a page to render: no browser guesses another type.
      .header('x-content-type-options', 'nosniff')
    return reply.send(Readable.from(bytes))
  })

  serveAuthenticated(app, routes.custody, async (request: FileRequest, _reply, auth) => {
    const context = requestContextOf(request)
    checkMotivo(spec, auth, 'consultar', context)
    const entries = await store.custody(spec, request.params.id, request.params.field, numberOf(request), {
      actor: auth.account.id,
      reveal: false,
      readBlocked: holds(auth, spec.permissions.bloqueados),
      user: actingUser(auth),
      request: context,
      auditor: holds(auth, service.audit.permission),
    })
    return { success: true, data: { entries } }
  })
}
