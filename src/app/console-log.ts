// The service's log as a person reads it on a terminal: one short line per
// event, time, level, message and the few fields that matter, a request as `GET /path -> 200
// (3 ms)`. JSON lines stay the default for files and pipes, where log tools read them.
// A pino destination: pino writes each JSON line to `write`, this turns it into text.

export type LogFormat = 'pretty' | 'json'

/** The LOG_FORMAT setting on this process: `auto` is pretty on a terminal, JSON otherwise. */
export function resolveLogFormat(setting: LogFormat | 'auto', isTerminal: boolean): LogFormat {
  return setting === 'auto' ? (isTerminal ? 'pretty' : 'json') : setting
}

const LEVELS: Readonly<Record<number, { readonly name: string; readonly color: number }>> = {
  10: { name: 'TRAZA', color: 90 },
  20: { name: 'DEPUR', color: 90 },
  30: { name: 'INFO ', color: 32 },
  40: { name: 'AVISO', color: 33 },
  50: { name: 'ERROR', color: 31 },
  60: { name: 'FATAL', color: 35 },
}

/** Fields every line has, or that the line already shows another way. */
const SHOWN_ELSEWHERE = new Set([
  'level',
  'time',
  'pid',
  'hostname',
  'msg',
  'reqId',
  'req',
  'res',
  'responseTime',
  'err',
])

type Entry = Record<string, unknown>

const clock = (time: unknown): string => {
  const at = typeof time === 'number' ? new Date(time) : new Date()
  return at.toTimeString().slice(0, 8)
}

const extras = (entry: Entry): string => {
  const rest = Object.entries(entry).filter(([k]) => !SHOWN_ELSEWHERE.has(k))
  const shown = rest.map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
  return shown.length === 0 ? '' : ` ${shown.join(' ')}`
}

export interface PrettyStream {
  write(line: string): boolean
}

/** A pino destination writing readable lines to `out`; colours when `color`. */
export function createPrettyStream(
  out: { write(text: string): unknown },
  options: { readonly color: boolean },
): PrettyStream {
  const paint = (code: number, text: string) => (options.color ? `\u001b[${code}m${text}\u001b[0m` : text)
  // A request's method and path arrive on its first line; its status on its last.
  const requests = new Map<string, string>()
  const format = (entry: Entry): string | undefined => {
    const reqId = typeof entry['reqId'] === 'string' ? entry['reqId'] : undefined
    const req = entry['req'] as { method?: string; path?: string } | undefined
    if (entry['msg'] === 'incoming request' && reqId !== undefined && req !== undefined) {
      requests.set(reqId, `${req.method ?? ''} ${req.path ?? ''}`)
      return undefined
    }
    let message = String(entry['msg'] ?? '')
    const res = entry['res'] as { statusCode?: number } | undefined
    if (entry['msg'] === 'request completed' && reqId !== undefined) {
      const time = typeof entry['responseTime'] === 'number' ? ` (${Math.round(entry['responseTime'])} ms)` : ''
      message = `${requests.get(reqId) ?? 'petición'} -> ${res?.statusCode ?? '?'}${time}`
      requests.delete(reqId)
    }
    const err = entry['err'] as { type?: string; message?: string; stack?: string } | undefined
    const level = LEVELS[Number(entry['level'])] ?? { name: String(entry['level']), color: 0 }
    const lines = [`${paint(90, clock(entry['time']))} ${paint(level.color, level.name)} ${message}${extras(entry)}`]
    if (err !== undefined) lines.push(paint(90, `  ${err.stack ?? `${err.type ?? 'Error'}: ${err.message ?? ''}`}`))
    return lines.join('\n')
  }
  return {
    write(line) {
      let text: string | undefined = line.replace(/\n$/, '')
      try {
        text = format(JSON.parse(text) as Entry)
      } catch {
        // Not a JSON line: shown as it came.
      }
      if (text !== undefined) out.write(`${text}\n`)
      return true
    },
  }
}
