// What `records import` says about the rows it refuses: the checks of an exported file that
// the API itself does not make (masked values, `_id`), and the rejections grouped by kind, so
// one wrong column in 50,000 rows is one line with a count, not 50,000 lines.
import { MASK, META } from '../compile/metadata.js'
import type { ModuleSpec } from '../compile/types.js'

export interface Rejected {
  readonly line: number
  readonly reason: string
}

export interface RejectionGroup {
  readonly reason: string
  readonly count: number
  /** The first lines of the kind, in file order. */
  readonly lines: readonly number[]
}

const SHOWN_LINES = 10

/**
 * A masked export (`***` in an encrypted field) lost the value: importing it would store a
 * record without it. Refused with the way out, rather than silently dropped as the API does.
 */
export function maskedProblem(spec: ModuleSpec, body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined
  const masked = Object.entries(body)
    .filter(([k, v]) => v === MASK && spec.fieldsByName.get(k)?.encrypted === true)
    .map(([k]) => k)
  if (masked.length === 0) return undefined
  const fields = masked.map((m) => `'${m}'`).join(', ')
  return (
    `Valor enmascarado '${MASK}' en ${fields}: el fichero es una exportación sin ` +
    '--decrypt y no contiene el valor; exporte con records export --decrypt'
  )
}

/** Does the row carry an identifier (an export's `_id` column)? */
export const hasId = (body: unknown): boolean =>
  typeof body === 'object' && body !== null && META.id in body && (body as Record<string, unknown>)[META.id] !== ''

export const ID_REFUSED =
  `El fichero trae la columna ${META.id} (una exportación): ` +
  'import solo crea registros nuevos, ' +
  `con identificadores nuevos, y no actualiza los existentes. Para crearlos así use --new-ids; ` +
  `para cambiar registros existentes use la API (PUT)`

/** The reason without its row-specific tail in parentheses: `... (repetido de la línea 2)`. */
const kindOf = (reason: string): string => reason.replace(/\s*\([^()]*\)$/, '')

/** Rejections grouped by kind, in the order each kind first appears. */
export function groupRejections(rejected: readonly Rejected[]): RejectionGroup[] {
  const groups = new Map<string, { reason: string; count: number; lines: number[] }>()
  for (const { line, reason } of rejected) {
    const kind = kindOf(reason)
    const group = groups.get(kind)
    if (group === undefined) groups.set(kind, { reason, count: 1, lines: [line] })
    else {
      group.count += 1
      if (group.lines.length < SHOWN_LINES) group.lines.push(line)
    }
  }
  return [...groups.values()].map((g) => (g.count === 1 ? g : { ...g, reason: kindOf(g.reason) }))
}

/** One line per kind: `línea 7: reason` when it happened once, else the count and the first lines. */
export function describeGroup(group: RejectionGroup): string {
  if (group.count === 1) return `línea ${group.lines[0]}: ${group.reason}`
  const more = group.count > group.lines.length ? ', …' : ''
  return `${group.count} filas: ${group.reason} (líneas ${group.lines.join(', ')}${more})`
}
