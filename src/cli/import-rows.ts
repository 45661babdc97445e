// A CSV (header of field names) or JSON Lines file -> one body per data row, with the line
// it starts on, in the shape a POST body has; rows that cannot even be read carry a reason.
import { parse } from 'csv-parse/sync'
import type { ModuleSpec } from '../compile/types.js'
import { commandFailed } from '../errors.js'
import { cellValue } from './cell-value.js'
import { restoreFormula } from './csv-formula.js'

export type ImportFormat = 'csv' | 'jsonl'

export interface ImportRow {
  readonly line: number
  readonly body?: unknown
  readonly problem?: string
}

/**
 * `;` or `,`, from the header: field names contain neither, so whichever the first line has more
 * of separates the columns. A spreadsheet in a Spanish locale saves CSV with `;`.
 */
export function delimiterOf(text: string): ';' | ',' {
  const header = text.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0] ?? ''
  const count = (c: string) => header.split(c).length - 1
  return count(';') > count(',') ? ';' : ','
}

function csvRows(spec: ModuleSpec, text: string): ImportRow[] {
  const delimiter = delimiterOf(text)
  const options = { bom: true, info: true, relax_column_count: true, skip_empty_lines: true, delimiter } as const
  const records = parse(text, options) as unknown as { record: string[]; info: { lines: number } }[]
  const [header, ...data] = records
  if (header === undefined) return []
  const names = header.record.map((n) => n.trim())
  return data.map(({ record, info }) => {
    // csv-parse counts the line a record ends on; a quoted value may span lines.
    const line = info.lines
    if (record.length !== names.length)
      return { line, problem: `La fila tiene ${record.length} columnas y la cabecera ${names.length}` }
    const body: Record<string, unknown> = {}
    names.forEach((name, i) => {
      const field = spec.fieldsByName.get(name)
      const value = cellValue(field, restoreFormula(record[i] ?? ''), { decimalComma: delimiter === ';' })
      if (value !== undefined) body[name] = value
    })
    return { line, body }
  })
}

function jsonlRows(text: string): ImportRow[] {
  const rows: ImportRow[] = []
  text.split('\n').forEach((raw, i) => {
    if (raw.trim() === '') return
    try {
      rows.push({ line: i + 1, body: JSON.parse(raw) as unknown })
    } catch {
      rows.push({ line: i + 1, problem: 'JSON inválido' })
    }
  })
  return rows
}

export function readImportRows(spec: ModuleSpec, text: string, format: ImportFormat): ImportRow[] {
  return format === 'csv' ? csvRows(spec, text) : jsonlRows(text)
}

/** --format, else the file's extension, else CSV. */
export function formatOf(option: string | undefined, file: string | undefined): ImportFormat {
  const chosen = option ?? (file !== undefined && /\.jsonl?$/i.test(file) ? 'jsonl' : 'csv')
  if (chosen !== 'csv' && chosen !== 'jsonl') throw commandFailed(`--format admite csv o jsonl (recibido '${chosen}')`)
  return chosen
}
