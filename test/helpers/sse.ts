// A Server-Sent Events client for the live-feed tests: reads a real HTTP stream,
// parses its events and lets a test wait for the next one of a kind. No timers: a wait ends
// with the event or with the stream.
export interface SseEvent {
  readonly id: string | undefined
  readonly event: string
  readonly data: any
}

export interface SseStream {
  readonly status: number
  readonly headers: Headers
  /** Every event received so far, in order. */
  readonly events: SseEvent[]
  /** Comment lines received (heartbeats). */
  readonly comments: string[]
  /** The next event (of `kind` when given) not yet taken; rejects when the stream ends first. */
  next(kind?: string): Promise<SseEvent>
  /** Resolves when the server ends the stream. */
  readonly ended: Promise<void>
  close(): void
  /** The body of a refused request (not a stream). */
  readonly body: any
}

export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseStream> {
  const abort = new AbortController()
  const response = await fetch(url, { headers, signal: abort.signal })
  const events: SseEvent[] = []
  const comments: string[] = []
  let taken = 0
  let waiters: (() => void)[] = []
  let done = false
  const notify = () => {
    const w = waiters
    waiters = []
    for (const f of w) f()
  }
  if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const text = await response.text()
    let body: unknown = text
    try {
      body = JSON.parse(text)
    } catch {
      /* not JSON */
    }
    return {
      status: response.status,
      headers: response.headers,
      events,
      comments,
      next: () => Promise.reject(new Error('not a stream')),
      ended: Promise.resolve(),
      close: () => undefined,
      body,
    }
  }
  const ended = (async () => {
    const reader = (response.body as ReadableStream<Uint8Array>).getReader()
    const decoder = new TextDecoder()
    let buffer = ''
    try {
      for (;;) {
        const { value, done: finished } = await reader.read()
        if (finished) break
        buffer += decoder.decode(value, { stream: true })
        let at: number
        while ((at = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, at)
          buffer = buffer.slice(at + 2)
          let id: string | undefined
          let event = 'message'
          const data: string[] = []
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim())
            else if (line.startsWith('id: ')) id = line.slice(4)
            else if (line.startsWith('event: ')) event = line.slice(7)
            else if (line.startsWith('data: ')) data.push(line.slice(6))
          }
          if (data.length > 0) events.push({ id, event, data: JSON.parse(data.join('\n')) })
          notify()
        }
      }
    } catch {
      /* aborted */
    } finally {
      done = true
      notify()
    }
  })()
  const next = async (kind?: string): Promise<SseEvent> => {
    for (;;) {
      while (taken < events.length) {
        const event = events[taken++] as SseEvent
        if (kind === undefined || event.event === kind) return event
      }
      if (done) throw new Error(`the stream ended before a${kind === undefined ? 'n' : ` '${kind}'`} event`)
      await new Promise<void>((resolve) => waiters.push(resolve))
    }
  }
  return {
    status: response.status,
    headers: response.headers,
    events,
    comments,
    next,
    ended,
    close: () => abort.abort(),
    body: undefined,
  }
}
