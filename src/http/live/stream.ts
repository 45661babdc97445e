// One open live feed: turns the audit's record writes into the events its
// subscriber may see. Every record is re-read through the store's `visible` (records/query.ts:
// the subscriber's scope and the list filters; field rules, masking and the read audit as a
// GET), so the feed has no access rule of its own. Entries are handled one at a time, in seq
// order; the subscriber's token and permissions are checked again before each batch and on
// every heartbeat. Each record shown is a consultation naming the subscription's request: its
// address, id and motivo (F3).
import type { ModuleSpec } from '../../compile/types.js'
import type { AuditEntry } from '../../db/audit/log.js'
import type { AuditTail } from '../../db/audit/tail.js'
import type { RecordStore, RequestContext } from '../../db/records/types.js'
import { isAppError } from '../../errors.js'
import type { Filter } from '../../records/list-query.js'
import { actingUser, holds, type AuthContext } from '../auth.js'
import { motivoMissing } from '../motivo.js'

/** The event names a client listens for. */
export type LiveEventKind = 'crear' | 'editar' | 'mover' | 'eliminar' | 'fuera' | 'recargar' | 'cerrado'

export interface Subscription {
  readonly spec: ModuleSpec
  readonly filters: readonly Filter[]
}

export interface LiveStreamOptions {
  readonly tail: AuditTail
  readonly store: RecordStore
  readonly subscriptions: ReadonlyMap<string, Subscription>
  /** Checks the subscriber again (revocation, disabled account, session version); throws when gone. */
  readonly recheck: () => Promise<AuthContext>
  readonly auth: AuthContext
  /** The subscription's request (address, id, motivo): what each consultation of the feed names. */
  readonly request: RequestContext
  /** Writes raw text to the response; false once the client is gone. */
  readonly send: (text: string) => boolean
  /** Ends the response. */
  readonly end: () => void
  /** A resume older than this many audit entries asks the client to reload (API reference). */
  readonly maxReplay: number
  /** Ids remembered per module to tell a record leaving the subscriber's view. */
  readonly maxKnown: number
  readonly onError: (error: unknown) => void
}

export interface LiveStream {
  /** Remembers what the subscriber sees now, then replays from `from` (or reloads) up to `cursor`. */
  open(cursor: number, from: number | undefined, last: number): void
  /** Entries from the feed, in seq order. */
  deliver(entries: readonly AuditEntry[]): void
  heartbeat(): void
  /** Ends the stream with a closing event telling why. */
  close(reason: string): void
  readonly closed: boolean
}

/** One SSE event: id, name and one data line (JSON has no raw newlines). */
export const sseEvent = (id: number | undefined, kind: LiveEventKind, data: unknown): string =>
  `${id === undefined ? '' : `id: ${id}\n`}event: ${kind}\ndata: ${JSON.stringify(data)}\n\n`

export function createLiveStream(options: LiveStreamOptions): LiveStream {
  const { store, subscriptions } = options
  let auth = options.auth
  let closed = false
  /** The last seq handled; entries up to it are skipped when the feed hands them out again. */
  let cursor = 0
  /** The last id the client was told (an event or a heartbeat's `id:` line). */
  let toldId = 0
  /** Until which seq entries are a replay (the client was away: `fuera` is decided on the current state). */
  let replayUntil = 0
  const known = new Map<string, Set<string>>([...subscriptions.keys()].map((m) => [m, new Set()]))
  let chain: Promise<void> = Promise.resolve()

  const queue = (work: () => Promise<void>) => {
    chain = chain.then(async () => {
      if (closed) return
      try {
        await work()
      } catch (error) {
        options.onError(error)
        close('No se pudo leer un cambio: vuelva a conectar para continuar')
      }
    })
  }

  function close(reason: string): void {
    if (closed) return
    closed = true
    options.send(sseEvent(undefined, 'cerrado', { mensaje: reason }))
    options.end()
  }

  function emit(seq: number, kind: LiveEventKind, data: unknown): void {
    if (!options.send(sseEvent(seq, kind, data))) closed = true
    toldId = seq
  }

  /** Whether the subscriber still may follow every module it asked for; closes the stream if not. */
  async function stillAllowed(): Promise<boolean> {
    try {
      auth = await options.recheck()
    } catch {
      close('La sesión ya no es válida: inicie sesión de nuevo')
      return false
    }
    const lost = [...subscriptions.values()].find((s) => !holds(auth, s.spec.permissions.ver))
    if (lost !== undefined) {
      close(`El rol '${auth.role.name}' ya no tiene el permiso '${lost.spec.permissions.ver}'`)
      return false
    }
    // A role changed to one that must justify reading a module, on a feed opened without a motivo (F3).
    const unjustified = [...subscriptions.values()].find((s) =>
      motivoMissing(s.spec, auth, 'consultar', options.request),
    )
    if (unjustified !== undefined) {
      close(`El rol '${auth.role.name}' debe indicar el motivo para consultar '${unjustified.spec.name}'`)
      return false
    }
    // A role changed to one that may no longer filter so (D16: descifrar; D27: a hidden field):
    // the store's one decision, as when the feed was opened.
    for (const sub of subscriptions.values()) {
      const reveal = holds(auth, sub.spec.permissions.descifrar)
      try {
        options.store.checkList(sub.spec, { filters: sub.filters, sort: [] }, { reveal, user: actingUser(auth) })
      } catch (error) {
        if (!isAppError(error)) throw error
        const why = error.details?.[0]?.message ?? error.message
        close(`El rol '${auth.role.name}' ya no puede filtrar '${sub.spec.name}' así: ${why}`)
        return false
      }
    }
    return true
  }

  function remember(module: string, id: string): void {
    const ids = known.get(module) as Set<string>
    if (ids.size >= options.maxKnown) ids.delete(ids.values().next().value as string)
    ids.add(id)
  }

  async function handle(entry: AuditEntry): Promise<void> {
    const sub = entry.module === null ? undefined : subscriptions.get(entry.module)
    const id = entry.record_id
    if (sub === undefined || id === null) return
    const { spec, filters } = sub
    const user = actingUser(auth)
    const ids = known.get(spec.name) as Set<string>
    const base = { modulo: spec.name, id, accion: entry.action, version: entry.version }
    if (entry.action === 'eliminar' || entry.action === 'suprimir') {
      // Told to whoever saw it (or, on a replay, whose view held it when it was deleted); an
      // erased record (D41) is in no view any more: told to whoever saw it on this stream.
      const saw =
        ids.delete(id) ||
        (await store.visibleIds(spec, filters, user, { limit: 1, ids: [id], includeDeleted: true })).length > 0
      if (saw) emit(entry.seq, 'eliminar', base)
      return
    }
    if (entry.action === 'bloquear') {
      // A blocked record leaves every view (D41): `fuera` to a stream that showed it, or whose
      // view holds it but for the block (beyond the ids it remembers). A replay never names it:
      // it cannot tell whether the client held it before the gap.
      const saw =
        ids.delete(id) ||
        (entry.seq > replayUntil &&
          (await store.visibleIds(spec, filters, user, { limit: 1, ids: [id], includeBlocked: true })).length > 0)
      if (saw) emit(entry.seq, 'fuera', base)
      return
    }
    const read = {
      reveal: holds(auth, spec.permissions.descifrar),
      actor: auth.account.id,
      user,
      request: options.request,
    }
    const record = await store.visible(spec, id, filters, read)
    if (record !== undefined) {
      remember(spec.name, id)
      const moved =
        spec.workflow !== undefined && entry.action === 'editar' && entry.fields.includes(spec.workflow.field)
      // An unblocked record (D41) comes back into view as it is: an `editar` of no field.
      const kind =
        entry.action === 'editar' ? (moved ? 'mover' : 'editar') : entry.action === 'desbloquear' ? 'editar' : 'crear'
      emit(entry.seq, kind, { ...base, campos: entry.fields, registro: record })
      return
    }
    // Out of view now: `fuera` to a subscriber that saw it; after a gap, to one whose scope
    // still holds it (it left the filter). A record out of scope is never named to them.
    const left =
      ids.delete(id) ||
      (entry.seq <= replayUntil && (await store.visibleIds(spec, [], user, { limit: 1, ids: [id] })).length > 0)
    if (left) emit(entry.seq, 'fuera', base)
  }

  async function handleAll(entries: readonly AuditEntry[]): Promise<void> {
    const fresh = entries.filter((e) => e.seq > cursor)
    if (fresh.length === 0 || !(await stillAllowed())) return
    for (const entry of fresh) {
      if (closed) return
      await handle(entry)
      cursor = entry.seq
    }
  }

  return {
    open(start, from, last) {
      cursor = start
      queue(async () => {
        const user = actingUser(auth)
        for (const { spec, filters } of subscriptions.values())
          for (const id of await store.visibleIds(spec, filters, user, { limit: options.maxKnown }))
            remember(spec.name, id)
        if (from === undefined) return
        if (from > last || last - from > options.maxReplay) {
          // Too far back (or a point this chain never had): reload, then follow from here.
          emit(start, 'recargar', {
            mensaje: 'El punto de reanudación es demasiado antiguo: vuelva a cargar los registros',
            desde: start,
          })
          return
        }
        replayUntil = start
        cursor = from
        for (;;) {
          const entries = await options.tail.writesAfter(cursor, 500)
          const upTo = entries.filter((e) => e.seq <= start)
          await handleAll(upTo)
          if (upTo.length < entries.length || entries.length < 500 || closed) break
        }
        cursor = Math.max(cursor, start)
      })
    },
    deliver(entries) {
      queue(() => handleAll(entries))
    },
    heartbeat() {
      queue(async () => {
        if (!(await stillAllowed())) return
        // A heartbeat moves the client's Last-Event-ID past entries it was not shown: a later
        // resume does not replay them, nor count them against the replay bound.
        const id = cursor > toldId ? `id: ${cursor}\n` : ''
        toldId = Math.max(toldId, cursor)
        if (!options.send(`: latido\n${id}\n`)) closed = true
      })
    },
    close: (reason) => queue(async () => close(reason)),
    get closed() {
      return closed
    },
  }
}
