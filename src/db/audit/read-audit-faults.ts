// Why a batch of consultation entries was not written (F1, F12): because of an entry the database
// refuses (its data: no retry will ever store it) or because the writer cannot write now (the
// database is away, the disk is full or read-only, a lock): that one is retried, never dropped.

/** 'entry': this entry can never be written; 'writer': nothing can be now; 'unknown': cannot tell. */
export type WriteFault = 'entry' | 'writer' | 'unknown'

// PostgreSQL SQLSTATE classes: 22 data exception (a NUL, a bad encoding, a value too long),
// 23 integrity constraint, 54 program limit (a row or an index entry too large).
const PG_ENTRY_CLASSES = new Set(['22', '23', '54'])
// 08 connection, 25 transaction state (read-only), 40 rollback (serialization), 42 privilege or a
// missing table, 53 resources (disk full), 55 object state (lock not available), 57 operator
// intervention, 58 system I/O, XX internal (data corrupted).
const PG_WRITER_CLASSES = new Set(['08', '25', '40', '42', '53', '55', '57', '58', 'XX'])

const SQLITE_ENTRY = ['SQLITE_CONSTRAINT', 'SQLITE_TOOBIG', 'SQLITE_MISMATCH', 'SQLITE_RANGE']
const SQLITE_WRITER = [
  'SQLITE_IOERR',
  'SQLITE_FULL',
  'SQLITE_READONLY',
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_CANTOPEN',
  'SQLITE_CORRUPT',
  'SQLITE_NOTADB',
  'SQLITE_NOMEM',
  'SQLITE_PERM',
  'SQLITE_PROTOCOL',
]
const startsWithAny = (code: string, prefixes: readonly string[]): boolean =>
  prefixes.some((p) => code === p || code.startsWith(`${p}_`))

/** The error's code: a SQLSTATE, an SQLITE_* code or a system error (ECONNREFUSED...); '' when none. */
export const faultCode = (error: unknown): string => {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' ? code : ''
}

/** Which kind of failure `error` is, from its code (see WriteFault). */
export function writeFault(error: unknown): WriteFault {
  const code = faultCode(error)
  if (code.startsWith('SQLITE_'))
    return startsWithAny(code, SQLITE_WRITER) ? 'writer' : startsWithAny(code, SQLITE_ENTRY) ? 'entry' : 'unknown'
  if (/^E[A-Z]+$/.test(code)) return 'writer' // a socket or file the system refused (ECONNREFUSED, ENOSPC)
  if (/^[0-9A-Z]{5}$/.test(code)) {
    const kind = code.slice(0, 2)
    return PG_ENTRY_CLASSES.has(kind) ? 'entry' : PG_WRITER_CLASSES.has(kind) ? 'writer' : 'unknown'
  }
  // An entry the code cannot even turn into SQL (a value JSON cannot hold, a missing list).
  if (error instanceof TypeError || error instanceof RangeError) return 'entry'
  const name = (error as { name?: unknown } | null)?.name
  return name === 'TypeError' || name === 'RangeError' ? 'entry' : 'unknown'
}
