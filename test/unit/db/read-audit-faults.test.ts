// F1, F12: which failures of the consultation writer are an entry's (set apart) and which the
// writer's (kept and retried): judged by the database's code alone.
import t from 'tap'
import { writeFault } from '../../../src/db/audit/read-audit-faults.js'

const withCode = (code: string) => Object.assign(new Error('x'), { code })

t.test('F1: what an entry causes is the entry’s; what the database or the disk causes is the writer’s', async (t) => {
  const cases: [unknown, string][] = [
    [withCode('22021'), 'entry'], // a NUL in text (PostgreSQL)
    [withCode('23502'), 'entry'],
    [withCode('54000'), 'entry'],
    [withCode('SQLITE_CONSTRAINT_NOTNULL'), 'entry'],
    [withCode('SQLITE_TOOBIG'), 'entry'],
    [new TypeError('x'), 'entry'],
    [withCode('42501'), 'writer'], // INSERT revoked
    [withCode('25006'), 'writer'], // read-only transaction
    [withCode('53100'), 'writer'], // disk full
    [withCode('57P01'), 'writer'],
    [withCode('ECONNREFUSED'), 'writer'],
    [withCode('SQLITE_FULL'), 'writer'],
    [withCode('SQLITE_IOERR_WRITE'), 'writer'],
    [withCode('SQLITE_READONLY'), 'writer'],
    [withCode('SQLITE_BUSY'), 'writer'],
    [withCode('SQLITE_ERROR'), 'unknown'],
    [withCode('P0001'), 'unknown'],
    [new Error('x'), 'unknown'],
  ]
  for (const [error, fault] of cases)
    t.equal(writeFault(error), fault, (error as { code?: string }).code ?? String(error))
})
