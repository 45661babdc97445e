// Queries built by Kysely once and then only re-parameterized: building and
// compiling a query costs more than SQLite takes to run it. A builder receives `param(name)`
// placeholders; the compiled query remembers where each one landed among the parameters.
import type { CompiledQuery, Compilable } from 'kysely'
import type { ModuleSpec } from '../compile/types.js'
import type { Db, Row } from './database.js'

const SENTINEL = '\u0000records-param:'

export interface Prepared<P extends string> {
  /** The compiled query with `values` bound in place of the placeholders; an absent value binds NULL. */
  bind(values: Readonly<Partial<Record<P, unknown>>>): CompiledQuery<Row>
}

export function prepare<P extends string>(build: (param: (name: P) => string) => Compilable<Row>): Prepared<P> {
  const compiled = build((name) => `${SENTINEL}${name}`).compile()
  // Each parameter is a placeholder to fill or a constant of the query (a `limit 1`, a `year: 0`).
  type Slot = { readonly name: P } | { readonly constant: unknown }
  const slots = compiled.parameters.map((value): Slot =>
    typeof value === 'string' && value.startsWith(SENTINEL)
      ? { name: value.slice(SENTINEL.length) as P }
      : { constant: value },
  )
  return {
    bind(values) {
      const parameters = slots.map((slot) => ('name' in slot ? (values[slot.name] ?? null) : slot.constant))
      return { ...compiled, parameters }
    },
  }
}

/**
 * One prepared query per dialect, built on first use from whichever handle runs it (the
 * database or one of its transactions share the dialect's adapter).
 */
export function preparedQuery<P extends string>(
  build: (db: Db, param: (name: P) => string) => Compilable<Row>,
): (db: Db) => Prepared<P> {
  const byAdapter = new WeakMap<object, Prepared<P>>()
  return (db) => {
    const adapter = db.getExecutor().adapter
    let prepared = byAdapter.get(adapter)
    if (prepared === undefined) byAdapter.set(adapter, (prepared = prepare((param) => build(db, param))))
    return prepared
  }
}

/** A query of each module, compiled on first use and then only re-bound. */
export function preparedPerModule<P extends string>(
  build: (spec: ModuleSpec, param: (name: P) => string) => Compilable<Row>,
): (spec: ModuleSpec) => Prepared<P> {
  const compiled = new Map<ModuleSpec, Prepared<P>>()
  return (spec) => {
    let prepared = compiled.get(spec)
    if (prepared === undefined) compiled.set(spec, (prepared = prepare<P>((param) => build(spec, param))))
    return prepared
  }
}
