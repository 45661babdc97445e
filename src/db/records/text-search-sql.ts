// The text search of `?q=` on each database, and the DDL of its index.
// SQLite: an FTS5 table over the searchable columns, kept by triggers (so every writer, the CLI
// included, keeps it current), folding case and accents (unicode61 remove_diacritics 2).
// PostgreSQL: a GIN index per searchable column on a 'simple' tsvector of the column's text
// folded the same way. Both match each word as a prefix and need every word in some column.
import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely'
import type { Dialect } from '../../compile/field-types.js'
import { ROW_COLUMN } from '../../compile/metadata.js'
import { SEARCH_TRIGGERS, searchIndexName, searchTableName, searchTriggerName } from '../../config/database-names.js'
import type { Db } from '../database.js'
import type { RecordQuery } from './query.js'

interface DdlQuery {
  compile(): ReturnType<RawBuilder<unknown>['compile']>
  execute(): Promise<unknown>
}

const ddl = (db: Db, query: RawBuilder<unknown>): DdlQuery => ({
  compile: () => query.compile(db),
  execute: () => query.execute(db),
})

// Accented letters folded where PostgreSQL's lower() may not (a C-locale database).
const ACCENTED = 'áàâäãéèêëíìîïóòôöõúùûüñçÁÀÂÄÃÉÈÊËÍÌÎÏÓÒÔÖÕÚÙÛÜÑÇ'
const PLAIN = 'aaaaaeeeeiiiiooooouuuuncaaaaaeeeeiiiiooooouuuunc'

/** The tsvector of one column, exactly as its index stores it: the query repeats it to use the index. */
const vectorOf = (column: string): RawBuilder<unknown> =>
  sql`to_tsvector('simple'::regconfig, translate(lower(coalesce(${sql.ref(column)}, '')), ${sql.lit(ACCENTED)}, ${sql.lit(PLAIN)}))`

const list = (names: readonly string[]) => sql.join(names.map((n) => sql.ref(n)))

export function createTextSearch(db: Db, dialect: Dialect, table: string, columns: readonly string[]): DdlQuery[] {
  if (dialect === 'postgres')
    return columns.map((column) =>
      ddl(
        db,
        sql`create index if not exists ${sql.id(searchIndexName(table, column))} on ${sql.table(table)} using gin (${vectorOf(column)})`,
      ),
    )
  const fts = searchTableName(table)
  const newValues = list(columns.map((c) => `new.${c}`))
  const oldValues = list(columns.map((c) => `old.${c}`))
  const remove = sql`insert into ${sql.table(fts)} (${sql.id(fts)}, rowid, ${list(columns)}) values ('delete', old.${sql.id(ROW_COLUMN)}, ${oldValues});`
  const add = sql`insert into ${sql.table(fts)} (rowid, ${list(columns)}) values (new.${sql.id(ROW_COLUMN)}, ${newValues});`
  const trigger = (suffix: (typeof SEARCH_TRIGGERS)[number], event: string, body: RawBuilder<unknown>) =>
    ddl(
      db,
      sql`create trigger ${sql.id(searchTriggerName(table, suffix))} after ${sql.raw(event)} on ${sql.table(table)} begin ${body} end`,
    )
  return [
    ddl(
      db,
      sql`create virtual table ${sql.table(fts)} using fts5(${list(columns)}, content=${sql.lit(table)}, content_rowid=${sql.lit(ROW_COLUMN)}, tokenize='unicode61 remove_diacritics 2')`,
    ),
    trigger('ai', 'insert', add),
    trigger('ad', 'delete', remove),
    trigger('au', 'update', sql`${remove} ${add}`),
    // The rows already there (a field made searchable on a module with records).
    ddl(db, sql`insert into ${sql.table(fts)} (${sql.id(fts)}) values ('rebuild')`),
  ]
}

export function dropTextSearch(db: Db, dialect: Dialect, table: string, columns: readonly string[]): DdlQuery[] {
  if (dialect === 'postgres')
    return columns.map((column) => ddl(db, sql`drop index if exists ${sql.id(searchIndexName(table, column))}`))
  const fts = searchTableName(table)
  return [
    ...SEARCH_TRIGGERS.map((suffix) =>
      ddl(db, sql`drop trigger if exists ${sql.id(searchTriggerName(table, suffix))}`),
    ),
    ddl(db, sql`drop table if exists ${sql.table(fts)}`),
  ]
}

export interface TextSearch {
  readonly query: RecordQuery
  /** Relevance, best first when ordered by `descending`. */
  readonly rank: Expression<unknown>
  readonly descending: boolean
}

/**
 * `query` narrowed to the records where every word begins a word of one of `columns` (the
 * searchable fields the caller may read), with the expression that orders them by relevance.
 * `hidesSome`: some searchable field is hidden from the caller; its words and length must not
 * weigh in their order (F5).
 */
export function withTextSearch(
  query: RecordQuery,
  dialect: Dialect,
  table: string,
  columns: readonly string[],
  words: readonly string[],
  hidesSome = false,
): TextSearch {
  if (dialect === 'postgres') {
    // Each column is ranked on its own tsvector, and only the caller's: a hidden one never weighs (F5).
    const wordMatch = (word: string) =>
      sql<SqlBool>`(${sql.join(
        columns.map((c) => sql`${vectorOf(c)} @@ to_tsquery('simple', ${`${word}:*`})`),
        sql` or `,
      )})`
    const all = sql`to_tsquery('simple', ${words.map((w) => `${w}:*`).join(' & ')})`
    return {
      query: words.reduce((q, word) => q.where(wordMatch(word)), query),
      rank: sql`(${sql.join(
        columns.map((c) => sql`ts_rank(${vectorOf(c)}, ${all})`),
        sql` + `,
      )})`,
      descending: true,
    }
  }
  const fts = searchTableName(table)
  // Words hold letters and digits only: quoting them is all FTS5's query syntax needs.
  const match = `{${columns.join(' ')}} : (${words.map((w) => `"${w}"*`).join(' AND ')})`
  const hits = sql`(select rowid as _q_row, bm25(${sql.table(fts)}) as _q_rank from ${sql.table(fts)} where ${sql.table(fts)} match ${match})`
  const narrowed = query.innerJoin(hits.as('_q'), '_q._q_row', `${table}.${ROW_COLUMN}`) as unknown as RecordQuery
  if (!hidesSome) return { query: narrowed, rank: sql.ref('_q._q_rank'), descending: false }
  // bm25 weighs a hit by the length of the whole row, hidden columns included (FTS5 has no
  // per-column length for it): for such a caller, the rank counts the (column, word) pairs found
  // in the columns they read, each an FTS5 lookup restricted to that column (F5).
  const found = columns.flatMap((column) =>
    words.map(
      (word) =>
        sql`(case when ${sql.ref(`${table}.${ROW_COLUMN}`)} in (select rowid from ${sql.table(fts)} where ${sql.table(fts)} match ${`{${column}} : "${word}"*`}) then 1 else 0 end)`,
    ),
  )
  return { query: narrowed, rank: sql`(${sql.join(found, sql` + `)})`, descending: true }
}
