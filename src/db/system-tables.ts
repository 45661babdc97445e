// The service's own tables: schema snapshot, id sequences, audit chain, record versions, revoked
// tokens, failed logins, session versions, second factors and recovery codes (D42), retention states
// and the tombstones of erased records (D41).
import { sql, type CreateTableBuilder } from 'kysely'
import type { Dialect } from '../compile/field-types.js'
import { SYSTEM_INDEXES } from '../config/database-names.js'
import type { Database, Db } from './database.js'
import { DDL_TYPES } from './dialects/ddl.js'
import { createFileTables } from './files/tables.js'

/** What an audit entry says, in `_audit` and in `_audit_pending` alike (D18, D38). */
const withEntryColumns = <T extends string, C extends string>(table: CreateTableBuilder<T, C>) =>
  table
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('module', 'text')
    .addColumn('record_id', 'text')
    .addColumn('version', 'integer')
    .addColumn('record_hash', 'text')
    .addColumn('fields', 'text', (c) => c.notNull())

export const SYSTEM_TABLES = {
  schemaState: '_schema_state',
  sequences: '_sequences',
  audit: '_audit',
  /** PostgreSQL record writes' entries until a sealer chains them into `_audit` (D38). */
  auditPending: '_audit_pending',
  revokedTokens: '_revoked_tokens',
  keys: '_keys',
  /** Per account, the session version its tokens must carry. */
  accountSessions: '_account_sessions',
  /** One row (id 1): the key every instance encrypts with. */
  keyState: '_key_state',
  /** One row per running instance: its keys, refreshed by a heartbeat. */
  instances: '_instances',
  loginFailures: '_login_failures',
  /** Single-use tickets that open a live feed from a browser. */
  eventTickets: '_event_tickets',
  /** Every version of every record, values as stored (encrypted ones encrypted). */
  versions: '_versions',
  /** One row per job that runs on one instance only: the period last claimed and its lease (db/job-lease.ts). */
  jobRuns: '_job_runs',
  /** Each account's second factors (D42): a TOTP secret encrypted like a field (D14), pending until confirmed. */
  secondFactors: '_second_factors',
  /** Each account's single-use recovery codes (D42), kept as hashes only. */
  recoveryCodes: '_recovery_codes',
  /** Per record with a retention decision (D41): its last review, its block, its legal hold. */
  retention: '_retention',
  /** Per erased record (D41 `suprimir`): who erased it, when, why and on which basis; never a value. */
  tombstones: '_tombstones',
} as const

/** Idempotent: creates what is missing (inside the migration transaction on PostgreSQL). */
export async function createSystemTables(db: Db, dialect: Dialect): Promise<void> {
  const bigint = sql.raw(DDL_TYPES[dialect].bigint)
  await db.schema
    .createTable(SYSTEM_TABLES.schemaState)
    .ifNotExists()
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('snapshot', 'text', (c) => c.notNull())
    .execute()
  await db.schema
    .createTable(SYSTEM_TABLES.sequences)
    .ifNotExists()
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('year', 'integer', (c) => c.notNull())
    .addColumn('value', bigint, (c) => c.notNull())
    .addPrimaryKeyConstraint(SYSTEM_INDEXES.sequencesKey, ['prefix', 'year'])
    .execute()
  await db.schema
    .createTable(SYSTEM_TABLES.audit)
    .ifNotExists()
    .addColumn('seq', bigint, (c) => c.primaryKey())
    .$call(withEntryColumns)
    .addColumn('prev_hash', 'text', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .execute()
  await addAuditRequestColumns(db, dialect)
  await db.schema
    .createIndex(SYSTEM_INDEXES.auditRecord)
    .ifNotExists()
    .on(SYSTEM_TABLES.audit)
    .columns(['module', 'record_id'])
    .execute()
  // Entries of record writes waiting for their place in the chain (D38): `_audit`'s columns but
  // seq, prev_hash and hash; `id` gives the order a sealer moves them in. Empty on SQLite.
  let pending = db.schema
    .createTable(SYSTEM_TABLES.auditPending)
    .ifNotExists()
    .addColumn('id', sql.raw(DDL_TYPES[dialect].rowId), (c) => c.primaryKey())
    .$call(withEntryColumns)
  for (const column of AUDIT_REQUEST_COLUMNS) pending = pending.addColumn(column, 'text')
  await pending.execute()
  await db.schema
    .createIndex(SYSTEM_INDEXES.auditUser)
    .ifNotExists()
    .on(SYSTEM_TABLES.audit)
    .columns(['user_id'])
    .execute()
  // One row per record version: `data` holds the field values as stored (JSON; an encrypted
  // value is its ciphertext, bound to the record like the live column).
  await db.schema
    .createTable(SYSTEM_TABLES.versions)
    .ifNotExists()
    .addColumn('module', 'text', (c) => c.notNull())
    .addColumn('record_id', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text')
    .addColumn('deleted', 'text')
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint(SYSTEM_INDEXES.versionsKey, ['module', 'record_id', 'version'])
    .execute()
  // The filters of GET /auditoria: a time range, a record id alone (the
  // module's filter uses ix_audit_record's first column).
  await db.schema.createIndex(SYSTEM_INDEXES.auditAt).ifNotExists().on(SYSTEM_TABLES.audit).columns(['at']).execute()
  await db.schema
    .createIndex(SYSTEM_INDEXES.auditRecordId)
    .ifNotExists()
    .on(SYSTEM_TABLES.audit)
    .columns(['record_id'])
    .execute()
  await db.schema
    .createTable(SYSTEM_TABLES.revokedTokens)
    .ifNotExists()
    .addColumn('jti', 'text', (c) => c.primaryKey())
    .addColumn('expires_at', bigint, (c) => c.notNull())
    .execute()
  await db.schema
    .createTable(SYSTEM_TABLES.eventTickets)
    .ifNotExists()
    .addColumn('ticket_hash', 'text', (c) => c.primaryKey())
    .addColumn('claims', 'text', (c) => c.notNull())
    .addColumn('expires_at', bigint, (c) => c.notNull())
    .execute()
  await db.schema
    .createTable(SYSTEM_TABLES.accountSessions)
    .ifNotExists()
    .addColumn('account_id', 'text', (c) => c.primaryKey())
    .addColumn('version', 'integer', (c) => c.notNull())
    .execute()
  await db.schema
    .createTable(SYSTEM_TABLES.keys)
    .ifNotExists()
    .addColumn('key_id', 'text', (c) => c.primaryKey())
    .execute()
  await db.schema
    .createTable(SYSTEM_TABLES.keyState)
    .ifNotExists()
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('active_key_id', 'text', (c) => c.notNull())
    .execute()
  await db.schema
    .createTable(SYSTEM_TABLES.instances)
    .ifNotExists()
    .addColumn('instance_id', 'text', (c) => c.primaryKey())
    .addColumn('host', 'text', (c) => c.notNull())
    .addColumn('pid', 'integer', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('seen_at', bigint, (c) => c.notNull())
    .addColumn('interval_ms', 'integer', (c) => c.notNull())
    .addColumn('key_ids', 'text', (c) => c.notNull())
    .addColumn('active_key_id', 'text', (c) => c.notNull())
    .execute()
  // Failed logins per username and per username and address: not copied by a
  // backup or `records copy`, they are forgotten within a day anyway.
  await db.schema
    .createTable(SYSTEM_TABLES.loginFailures)
    .ifNotExists()
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('last_at', bigint, (c) => c.notNull())
    .execute()
  // Not copied by a backup or `records copy` either: a new installation runs its jobs afresh.
  await db.schema
    .createTable(SYSTEM_TABLES.jobRuns)
    .ifNotExists()
    .addColumn('job', 'text', (c) => c.primaryKey())
    .addColumn('period', bigint, (c) => c.notNull())
    .addColumn('instance_id', 'text', (c) => c.notNull())
    .addColumn('lease_until', bigint, (c) => c.notNull())
    .execute()
  await createSecondFactorTables(db, dialect)
  // A record's retention state (D41): a row once something is decided on it, none before:
  // its last review, its block (bloquear) and the reference of its legal hold (retener).
  await db.schema
    .createTable(SYSTEM_TABLES.retention)
    .ifNotExists()
    .addColumn('module', 'text', (c) => c.notNull())
    .addColumn('record_id', 'text', (c) => c.notNull())
    .addColumn('reviewed_at', 'text')
    .addColumn('reviewed_by', 'text')
    .addColumn('blocked_at', 'text')
    .addColumn('blocked_by', 'text')
    .addColumn('hold_reference', 'text')
    .addPrimaryKeyConstraint(SYSTEM_INDEXES.retentionKey, ['module', 'record_id'])
    .execute()
  // What is left of an erased record (D41): its module and id, when, by whom, why and the basis
  // its module declared then. Created when missing, so a database of an earlier release gains it.
  await db.schema
    .createTable(SYSTEM_TABLES.tombstones)
    .ifNotExists()
    .addColumn('module', 'text', (c) => c.notNull())
    .addColumn('record_id', 'text', (c) => c.notNull())
    .addColumn('erased_at', 'text', (c) => c.notNull())
    .addColumn('erased_by', 'text', (c) => c.notNull())
    .addColumn('motivo', 'text', (c) => c.notNull())
    .addColumn('basis', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint(SYSTEM_INDEXES.tombstonesKey, ['module', 'record_id'])
    .execute()
  // The blocked records only (D41), which every read of a module with `retention:` leaves out
  // (records/query.ts notBlocked): while a module has none, one probe of this index says so. A
  // database made before it gets it at its next start (`if not exists`).
  await db.schema
    .createIndex(SYSTEM_INDEXES.retentionBlocked)
    .ifNotExists()
    .on(SYSTEM_TABLES.retention)
    .columns(['module', 'record_id'])
    .where(sql.ref('blocked_at'), 'is not', null)
    .execute()
  // D43: evidence files and (PostgreSQL) their sealed bytes.
  await createFileTables(db, dialect)
}

/**
 * D42: `last_counter` is the TOTP time step last accepted, so a code is taken once; a factor
 * with `confirmed_at` null is an enrolment not yet confirmed, which no login asks for.
 */
async function createSecondFactorTables(db: Db, dialect: Dialect): Promise<void> {
  const bigint = sql.raw(DDL_TYPES[dialect].bigint)
  await db.schema
    .createTable(SYSTEM_TABLES.secondFactors)
    .ifNotExists()
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('confirmed_at', 'text')
    .addColumn('last_counter', bigint)
    .execute()
  await db.schema
    .createIndex(SYSTEM_INDEXES.secondFactorsAccount)
    .ifNotExists()
    .on(SYSTEM_TABLES.secondFactors)
    .columns(['account_id'])
    .execute()
  await db.schema
    .createTable(SYSTEM_TABLES.recoveryCodes)
    .ifNotExists()
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .addPrimaryKeyConstraint(SYSTEM_INDEXES.recoveryCodesKey, ['account_id', 'code_hash'])
    .execute()
}

/**
 * The columns of one consultation or disclosure entry, all nullable: entries
 * written before them keep NULL there and their hashes do not include them (audit/log.ts).
 */
export const AUDIT_REQUEST_COLUMNS = ['address', 'request_id', 'motivo', 'recipient', 'record_ids', 'criteria'] as const

/** Adds the request columns to an `_audit` created before them (idempotent, both dialects). */
async function addAuditRequestColumns(db: Db, dialect: Dialect): Promise<void> {
  const existing = new Set<string>()
  if (dialect === 'sqlite') {
    const { rows } = await sql<{ name: string }>`select name from pragma_table_info(${SYSTEM_TABLES.audit})`.execute(db)
    for (const row of rows) existing.add(row.name)
  } else {
    const { rows } = await sql<{ name: string }>`
      select column_name as name from information_schema.columns
      where table_schema = current_schema() and table_name = ${SYSTEM_TABLES.audit}`.execute(db)
    for (const row of rows) existing.add(row.name)
  }
  for (const column of AUDIT_REQUEST_COLUMNS)
    if (!existing.has(column)) await db.schema.alterTable(SYSTEM_TABLES.audit).addColumn(column, 'text').execute()
}

/**
 * createSystemTables under the migration lock, in its own transaction: instances starting
 * together on one PostgreSQL would otherwise race on CREATE TABLE IF NOT EXISTS.
 */
export async function ensureSystemTables(database: Database): Promise<void> {
  await database.db.transaction().execute(async (trx) => {
    await database.lock(trx, 'migration')
    await createSystemTables(trx, database.dialect)
  })
}
