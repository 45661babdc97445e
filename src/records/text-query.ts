// `?q=` of a list: the words to find, as both databases index them. Pure.
//
// A word is a run of letters and digits; case and accents do not count ("Daños" and "DANOS"
// are the word "danos"). Each word of the query must begin a word of one of the searchable
// fields the caller may read: "dano" finds "daños", both databases alike (no stemming, so
// SQLite's FTS5 and PostgreSQL's tsvector agree on every match).

/** Longest `q` accepted, in characters. */
export const MAX_TEXT_QUERY_LENGTH = 200
/** Most words one `q` may hold. */
export const MAX_TEXT_QUERY_WORDS = 10

/** Lower case, accents removed: the form both databases store and compare. */
export const foldText = (text: string): string => text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase()

/** The distinct words of `text`, folded, in order of appearance. */
export function searchWords(text: string): string[] {
  return [...new Set(foldText(text).match(/[\p{L}\p{N}]+/gu) ?? [])]
}
