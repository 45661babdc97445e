// The live feed (D36) for one module's list: GET /eventos with a one-use ticket from
// POST /eventos/ticket (an EventSource cannot send Authorization or X-Motivo). The browser's own
// reconnection would reuse a spent ticket, so on any error the stream is closed and opened again
// by this file with a new ticket and `desde` (the last event id), waiting longer after each
// failure in a row (2 s doubling to 60 s): no reconnect storm. `cerrado` ends it for good.
import { API_BASE, ApiError } from './api.js'
import { callFor } from './motivo.js'
import type { RecordData } from './module-view.js'

export interface LiveEvent {
  readonly evento: 'crear' | 'editar' | 'mover' | 'eliminar' | 'fuera' | 'recargar'
  readonly id?: string
  readonly registro?: RecordData
}

export type LiveState =
  | { readonly estado: 'conectando' | 'activa' | 'reconectando' }
  | {
      readonly estado: 'cerrada'
      readonly mensaje: string
    }

/** The feed's state as the page says it. */
export const liveText = (live: LiveState): string =>
  live.estado === 'cerrada'
    ? `Actualización en directo cerrada: ${live.mensaje}`
    : live.estado === 'activa'
      ? 'Actualización en directo activa'
      : live.estado === 'conectando'
        ? 'Conectando la actualización en directo…'
        : 'Actualización en directo interrumpida: reconectando…'

const EVENTS = ['crear', 'editar', 'mover', 'eliminar', 'fuera', 'recargar'] as const
const FIRST_WAIT = 2_000
const LONGEST_WAIT = 60_000

/** Follows `module` until the returned function is called; `onEvent` gets each write. */
export function follow(module: string, onEvent: (e: LiveEvent) => void, onState: (s: LiveState) => void): () => void {
  let source: EventSource | null = null
  let timer: ReturnType<typeof setTimeout> | undefined
  let lastId: string | null = null
  let wait = FIRST_WAIT
  let stopped = false

  const retry = () => {
    source?.close()
    source = null
    if (stopped) return
    onState({ estado: 'reconectando' })
    timer = setTimeout(open, wait)
    wait = Math.min(wait * 2, LONGEST_WAIT)
  }
  const end = (mensaje: string) => {
    stopped = true
    source?.close()
    source = null
    onState({ estado: 'cerrada', mensaje })
  }

  async function open() {
    if (stopped) return
    let ticket: string
    try {
      ticket = (await callFor<{ ticket: string }>(module, 'POST', '/eventos/ticket')).data.ticket
    } catch (error) {
      // 401 has already ended the session (api.ts); a refused motivo or 403 will not get better.
      if (error instanceof ApiError && error.status !== 429 && error.status < 500) end(error.message)
      else retry()
      return
    }
    if (stopped) return
    const params = new URLSearchParams({ ticket, modulos: module })
    if (lastId !== null) params.set('desde', lastId)
    const stream = new EventSource(`${API_BASE}/eventos?${params.toString()}`)
    source = stream
    stream.onopen = () => {
      wait = FIRST_WAIT
      onState({ estado: 'activa' })
    }
    stream.onerror = retry
    for (const name of EVENTS)
      stream.addEventListener(name, (message: MessageEvent<string>) => {
        if (message.lastEventId !== '') lastId = message.lastEventId
        const data = JSON.parse(message.data) as { id?: string; registro?: RecordData }
        onEvent({
          evento: name,
          ...(data.id === undefined ? {} : { id: String(data.id) }),
          ...(data.registro === undefined ? {} : { registro: data.registro }),
        })
      })
    stream.addEventListener('cerrado', (message: MessageEvent<string>) => {
      end((JSON.parse(message.data) as { mensaje?: string }).mensaje ?? 'El servicio cerró la actualización en directo')
    })
  }

  onState({ estado: 'conectando' })
  void open()
  return () => {
    stopped = true
    clearTimeout(timer)
    source?.close()
  }
}
