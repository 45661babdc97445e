// The deterministic name of a composite index (issue #7): readable, unique, within the
// identifier limit of PostgreSQL (63 bytes; longer names are silently cut there).

const MAX_IDENTIFIER_BYTES = 63
const encoder = new TextEncoder()
const bytesOf = (text: string): number => encoder.encode(text).length

/** FNV-1a (32 bits) of the text, as 8 hex digits: pure and stable across runs and platforms. */
function shortHash(text: string): string {
  let hash = 0x811c9dc5
  for (const byte of encoder.encode(text)) {
    hash ^= byte
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash.toString(16).padStart(8, '0')
}

/**
 * `cx_<table>__<f1>__<f2>`. The `cx_` prefix keeps it apart from the `ix_`/`ux_` names of
 * single-field indexes. When a name holds `__` itself (the parts could then be read two ways)
 * or the result is too long, the name is cut and ends in a hash of the table and field list.
 */
export function compositeIndexName(table: string, fields: readonly string[]): string {
  const parts = [table, ...fields]
  const readable = `cx_${parts.join('__')}`
  if (!parts.some((p) => p.includes('__')) && bytesOf(readable) <= MAX_IDENTIFIER_BYTES) return readable
  const suffix = `_${shortHash(parts.join(','))}`
  let cut = readable
  while (bytesOf(cut) + suffix.length > MAX_IDENTIFIER_BYTES) cut = cut.slice(0, -1)
  return `${cut}${suffix}`
}
