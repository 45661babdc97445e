// Counts in the command line's messages: "1 aviso", "2 avisos" (never "1 avisos").

/**
 * `n` and the noun agreed with it. The singular, unless given, is the plural without its ending:
 * `-s` after a vowel (avisos, módulos), `-es` after a consonant (roles); words whose singular
 * changes more (versiones, versión) pass it.
 */
export function countOf(n: number, plural: string, singular = plural.replace(/(?<=[^aeiouáéíóú])es$|s$/, '')): string {
  return `${n} ${n === 1 ? singular : plural}`
}
