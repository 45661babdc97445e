// The live feed: GET /eventos streams Server-Sent Events of record writes,
// POST /eventos/ticket gives a browser's EventSource a single-use ticket (it cannot send the
// bearer header, and a token in a URL ends in logs). Access rules are the store's (stream.ts);
// a module's motivo rule is asked at subscription, the motivo coming with the ticket or the
// request (F3).
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { formatTimestamp } from '../../compile/time.js'
import type { ServiceSpec } from '../../compile/types.js'
import type { EventTicketStore } from '../../db/accounts/event-tickets.js'
import type { AuditTail } from '../../db/audit/tail.js'
import type { RecordStore, RequestContext } from '../../db/records/types.js'
import { invalidTicket, missingPermission, tooManyStreams, validationFailed, type ErrorDetail } from '../../errors.js'
import { LIST_PARAMETERS, parseListQuery, type QueryValue } from '../../records/list-query.js'
import { actingUser, holds, type AuthContext, type TokenClaims } from '../auth.js'
import type { LiveFeed } from '../live/feed.js'
import type { ContractFamily } from '../../contracts/route-contract.js'
import type { EventRoute } from '../../contracts/events.js'
import { serveAuthenticated, serveRoute } from '../contract-route.js'
import { checkMotivo, motivoMissing, motivoOf } from '../motivo.js'
import { createLiveStream, type LiveStream, type Subscription } from '../live/stream.js'

export interface LiveFeedLimits {
  /** Open streams per user on one instance (429 beyond). */
  readonly perUser: number
  /** Open streams on one instance (429 beyond). */
  readonly perInstance: number
  readonly heartbeatMs: number
  /** Seconds a ticket stays redeemable. */
  readonly ticketSeconds: number
  /** Audit entries a resume may replay; an older resume point gets `recargar`. */
  readonly maxReplay: number
}

export const DEFAULT_LIVE_LIMITS: LiveFeedLimits = {
  perUser: 5,
  perInstance: 1000,
  heartbeatMs: 15_000,
  ticketSeconds: 30,
  maxReplay: 10_000,
}

export interface EventRoutesOptions {
  readonly contracts: ContractFamily<EventRoute>
  readonly service: ServiceSpec
  readonly store: RecordStore
  readonly tail: AuditTail
  readonly feed: LiveFeed
  readonly tickets: EventTicketStore
  readonly clock: () => Date
  readonly limits: LiveFeedLimits
}

const MAX_KNOWN = 10_000

type EventsRequest = FastifyRequest<{ Querystring: Record<string, QueryValue> }>

const single = (value: QueryValue): string | undefined => (Array.isArray(value) ? value[0] : (value as string))

/** A seq: `?desde=` or the Last-Event-ID header an EventSource sends on reconnecting. */
function resumePoint(request: EventsRequest, problems: ErrorDetail[]): number | undefined {
  const header = request.headers['last-event-id']
  const raw = single(request.query['desde']) ?? (typeof header === 'string' ? header : undefined)
  if (raw === undefined || raw === '') return undefined
  if (!/^\d{1,15}$/.test(raw.trim())) {
    problems.push({
      field: 'desde',
      message: `'desde' (o Last-Event-ID) debe ser un número de evento (recibido '${raw}')`,
    })
    return undefined
  }
  return Number(raw.trim())
}

export async function eventRoutes(app: FastifyInstance, options: EventRoutesOptions): Promise<void> {
  const { service, store, feed, tickets, clock, limits } = options
  /** The feed's own parameters, its contract's query parameters and the ticket; every other one is a list filter. */
  const feedParameters = new Set([
    ...(options.contracts.routes.stream.parameters ?? []).filter((p) => p['in'] === 'query').map((p) => p['name']),
    'ticket',
  ])
  const open = new Set<LiveStream>()
  const perUser = new Map<string, number>()

  app.addHook('preClose', async () => {
    for (const stream of open) stream.close('El servicio se detiene: vuelva a conectar en unos segundos')
  })
  app.addHook('onClose', async () => feed.close())

  /**
   * The caller, by a ticket (spent here) or the bearer token, and the request its consultations
   * name: this one's address and id, the motivo given with the ticket or in `X-Motivo` (F3).
   */
  async function caller(request: EventsRequest): Promise<{ auth: AuthContext; context: RequestContext }> {
    const ticket = single(request.query['ticket'])
    let auth: AuthContext
    let motivo = motivoOf(request)
    if (ticket === undefined) auth = await app.authenticate(request)
    else {
      const grant = await tickets.redeem(ticket, clock().getTime())
      if (grant?.claims === undefined) throw invalidTicket()
      auth = await app.authorizeClaims(grant.claims as TokenClaims)
      motivo = grant.motivo ?? motivo
    }
    return { auth, context: { address: request.ip, requestId: String(request.id), motivo } }
  }

  /**
   * The modules asked for, each with the list's filters; when none, all the caller may list as
   * it asks: those whose motivo rule it meets (F3). A module named without the motivo it needs: 400.
   */
  function subscriptions(
    request: EventsRequest,
    { auth, context }: { auth: AuthContext; context: RequestContext },
    problems: ErrorDetail[],
  ): Map<string, Subscription> {
    const raw = single(request.query['modulos'])
    const names =
      raw === undefined || raw.trim() === ''
        ? service.modules
            .filter((m) => holds(auth, m.permissions.ver) && !motivoMissing(m, auth, 'consultar', context))
            .map((m) => m.name)
        : [...new Set(raw.split(',').map((n) => n.trim()))]
    const filterQuery = Object.fromEntries(Object.entries(request.query).filter(([k]) => !feedParameters.has(k)))
    for (const name of Object.keys(filterQuery).filter((k) => (LIST_PARAMETERS as readonly string[]).includes(k)))
      problems.push({ field: name, message: `El parámetro '${name}' no se aplica a un flujo de eventos` })
    const out = new Map<string, Subscription>()
    for (const name of names) {
      const spec = service.modules.find((m) => m.name === name)
      if (spec === undefined) {
        problems.push({ field: 'modulos', message: `Módulo desconocido '${name}'` })
        continue
      }
      if (!holds(auth, spec.permissions.ver)) throw missingPermission(spec.permissions.ver, auth.role.name)
      checkMotivo(spec, auth, 'consultar', context)
      const query = parseListQuery(spec, filterQuery, service.service.list)
      // As a list, by the store's one decision: D16's descifrar, no hidden field filtered (D27).
      store.checkList(spec, query, { reveal: holds(auth, spec.permissions.descifrar), user: actingUser(auth) })
      out.set(name, { spec, filters: query.filters })
    }
    return out
  }

  serveAuthenticated(app, options.contracts.routes.ticket, async (request, reply, auth) => {
    const now = clock().getTime()
    const expires = now + limits.ticketSeconds * 1000
    // The motivo travels with the ticket: the EventSource redeeming it cannot send the header (F3).
    const ticket = await tickets.issue({ claims: auth.claims, motivo: motivoOf(request) }, now, expires)
    void reply.code(201)
    // In the service's time format and zone (D9), like every time the API answers.
    return { success: true, data: { ticket, caduca: formatTimestamp(new Date(expires), service.service.timezone) } }
  })

  serveRoute(app, options.contracts.routes.stream, async (request: EventsRequest, reply) => {
    const asking = await caller(request)
    const { auth } = asking
    const problems: ErrorDetail[] = []
    const from = resumePoint(request, problems)
    const subs = subscriptions(request, asking, problems)
    if (problems.length > 0) throw validationFailed(problems)
    const userId = auth.account.id
    const mine = perUser.get(userId) ?? 0
    if (mine >= limits.perUser)
      throw tooManyStreams(
        `Ya tiene ${mine} flujos de eventos abiertos (máximo ${limits.perUser}): cierre alguno antes de abrir otro`,
      )
    if (open.size >= limits.perInstance)
      throw tooManyStreams(
        `Esta instancia ya sirve ${open.size} flujos de eventos (máximo ${limits.perInstance}): reintente más tarde`,
      )

    perUser.set(userId, mine + 1)
    const res = reply.raw
    const stream = createLiveStream({
      tail: options.tail,
      store,
      subscriptions: subs,
      auth,
      request: asking.context,
      recheck: async () => {
        if (auth.claims.exp * 1000 <= clock().getTime()) throw invalidTicket()
        return app.authorizeClaims(auth.claims)
      },
      send: (text) => {
        if (res.destroyed || res.writableEnded) return false
        res.write(text)
        // A client that reads nothing for long is dropped rather than buffered without end.
        if (res.writableLength > 4 * 1024 * 1024) res.destroy()
        return !res.destroyed
      },
      end: () => res.end(),
      maxReplay: limits.maxReplay,
      maxKnown: MAX_KNOWN,
      onError: (error) => request.log.error({ err: error }, 'flujo de eventos: no se pudo leer un cambio'),
    })
    open.add(stream)
    let unsubscribe = () => undefined as void
    let beat: NodeJS.Timeout | undefined
    const done = () => {
      if (!open.delete(stream)) return
      unsubscribe()
      if (beat !== undefined) clearInterval(beat)
      const left = (perUser.get(userId) ?? 1) - 1
      if (left === 0) perUser.delete(userId)
      else perUser.set(userId, left)
    }
    res.on('close', done)

    try {
      const subscribed = await feed.subscribe((entries) => stream.deliver(entries))
      unsubscribe = subscribed.unsubscribe
      const last = from === undefined ? subscribed.cursor : await options.tail.lastSeq()
      reply.hijack()
      res.writeHead(200, {
        ...(reply.getHeaders() as Record<string, string>),
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        'x-accel-buffering': 'no',
        // The connection ends with the stream. Kept open, it would sit idle until the client or
        // Fastify's 72 s keep-alive ends it, and a service that stops waits for every connection:
        // a stream its stop closes (preClose) may end only after the idle ones were closed.
        connection: 'close',
      })
      // The retry delay, and a first line that lets proxies and clients see the stream open.
      res.write(`retry: 3000\n: conectado\n\n`)
      stream.open(subscribed.cursor, from, Math.max(last, subscribed.cursor))
      beat = setInterval(() => stream.heartbeat(), limits.heartbeatMs)
      beat.unref()
      if (res.destroyed) done()
    } catch (error) {
      done()
      throw error
    }
  })
}
