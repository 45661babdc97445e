// An exported piece of the audit chain: its lines in CSV or JSON Lines, and
// the offline check of such a file: consecutive sequence numbers, each entry linked to the one
// before, each hash recomputed. Pure: no database; `records audit verify --segment` runs it.
import { parse } from 'csv-parse/sync'
import { stringify } from 'csv-stringify/sync'
import { neutraliseFormula, restoreFormula } from './csv-formula.js'
import { auditEntryFromRow, hashAuditEntry, type AuditEntry } from '../db/audit/log.js'
import { canonicalJson } from '../db/canonical.js'
import type { Row } from '../db/database.js'
import { AUDIT_COLUMNS } from '../db/audit/log.js'

export type SegmentFormat = 'csv' | 'jsonl'

/** The columns of an entry, in the stored order: the header of a CSV export. */
export const SEGMENT_COLUMNS = AUDIT_COLUMNS

const cell = (value: unknown): string =>
  value === null || value === undefined
    ? ''
    : typeof value === 'object'
      ? canonicalJson(value)
      : typeof value === 'string'
        ? neutraliseFormula(value)
        : String(value)

/** The CSV header line. */
export const segmentHeader = (): string => stringify([[...SEGMENT_COLUMNS]])

/** Entries as lines of the format (CSV without its header). */
export function segmentLines(entries: readonly AuditEntry[], format: SegmentFormat): string {
  if (format === 'jsonl') return entries.map((e) => `${JSON.stringify(e)}\n`).join('')
  return stringify(entries.map((e) => SEGMENT_COLUMNS.map((c) => cell(e[c]))))
}

export interface SegmentReport {
  readonly entries: number
  readonly first?: { readonly seq: number; readonly prevHash: string }
  readonly last?: { readonly seq: number; readonly hash: string }
  readonly problems: readonly { readonly seq?: number; readonly message: string }[]
}

/** A stored-row form of an exported entry: JSON text where the database keeps JSON text. */
function rowOf(value: Readonly<Record<string, unknown>>): Row {
  const row: Row = {}
  for (const column of SEGMENT_COLUMNS) {
    const v = value[column]
    row[column] = v !== null && typeof v === 'object' ? JSON.stringify(v) : (v ?? null)
  }
  return row
}

function csvRows(text: string): Row[] {
  const records = parse(text, { columns: true, skip_empty_lines: true, bom: true }) as Record<string, string>[]
  return records.map((record) => {
    const row: Row = {}
    for (const column of SEGMENT_COLUMNS) {
      const raw = record[column]
      row[column] = raw === undefined || raw === '' ? null : restoreFormula(raw)
    }
    return row
  })
}

/** Checks an exported segment; any line that cannot be read is a problem, never an exception. */
export function verifySegment(text: string): SegmentReport {
  const problems: { seq?: number; message: string }[] = []
  let rows: Row[]
  try {
    rows = text.trimStart().startsWith('{')
      ? text
          .split('\n')
          .filter((line) => line.trim() !== '')
          .map((line) => rowOf(JSON.parse(line) as Record<string, unknown>))
      : csvRows(text)
  } catch (error) {
    return {
      entries: 0,
      problems: [{ message: `El fichero no es una exportación de la auditoría legible: ${(error as Error).message}` }],
    }
  }
  let previous: AuditEntry | undefined
  let first: SegmentReport['first']
  for (const [index, row] of rows.entries()) {
    let entry: AuditEntry
    try {
      entry = auditEntryFromRow(row)
      if (!Number.isSafeInteger(entry.seq) || !Array.isArray(entry.fields)) throw new Error('sin seq o fields')
    } catch {
      problems.push({ message: `La línea ${index + 1} no es una entrada de auditoría` })
      return { entries: index, problems }
    }
    first ??= { seq: entry.seq, prevHash: entry.prev_hash }
    if (previous !== undefined) {
      if (entry.seq !== previous.seq + 1)
        problems.push({ seq: entry.seq, message: `Faltan entradas entre ${previous.seq} y ${entry.seq}` })
      if (entry.prev_hash !== previous.hash)
        problems.push({ seq: entry.seq, message: `La entrada ${entry.seq} no enlaza con la anterior` })
    }
    const { hash, ...content } = entry
    if (hashAuditEntry(content) !== hash)
      problems.push({ seq: entry.seq, message: `La entrada ${entry.seq} ha sido alterada` })
    previous = entry
  }
  if (rows.length === 0) problems.push({ message: 'El fichero no tiene entradas' })
  return {
    entries: rows.length,
    ...(first === undefined ? {} : { first }),
    ...(previous === undefined ? {} : { last: { seq: previous.seq, hash: previous.hash } }),
    problems,
  }
}
