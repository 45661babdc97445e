// The same-work stack's consultation writer on SQLite (scripts/bench/same-work.ts): a worker
// thread with its own connection to the bare stack's file, as the service's read-audit worker
// has. Each message is a batch: chained after the last entry written, inserted in one
// transaction, answered with its id once committed (or with the error).
import { parentPort, workerData } from 'node:worker_threads'
import BetterSqlite3 from 'better-sqlite3'
import { chain, consultationValues, CONSULTATIONS_TABLE, type Consultation } from './same-work.js'

const port = parentPort
if (port === null) throw new Error('bare-consultation-worker: not a worker thread')
const db = new BetterSqlite3((workerData as { file: string }).file)
db.pragma('journal_mode = WAL')
db.pragma('synchronous = FULL')
db.pragma('busy_timeout = 5000')
db.exec(CONSULTATIONS_TABLE('integer primary key'))
const insert = db.prepare(
  'insert into bare_consultations (at, user_id, module, record_id, version, fields, address, request_id, prev_hash, hash) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
)
const tail = db.prepare('select hash from bare_consultations order by seq desc limit 1').pluck()
const append = db.transaction((entries: readonly Consultation[]) => {
  for (const entry of chain(String(tail.get() ?? ''), entries)) insert.run(...consultationValues(entry))
})
port.on('message', ({ id, entries }: { id: number; entries: readonly Consultation[] }) => {
  try {
    append(entries)
    port.postMessage({ id })
  } catch (error) {
    port.postMessage({ id, error: String(error) })
  }
})
