// "Did you mean" for misspelt keys and values in modules.yaml.

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0] ?? 0
    row[0] = i
    for (let j = 1; j <= b.length; j++) {
      const current = row[j] ?? 0
      row[j] = Math.min(current + 1, (row[j - 1] ?? 0) + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1))
      previous = current
    }
  }
  return row[b.length] ?? 0
}

/** The closest candidate within a third of the word's length, as a Spanish hint, or ''. */
export function didYouMean(word: string, candidates: readonly string[]): string {
  let best: string | undefined
  let bestDistance = Math.max(2, Math.ceil(word.length / 3)) + 1
  for (const candidate of candidates) {
    const d = distance(word.toLowerCase(), candidate.toLowerCase())
    if (d < bestDistance) {
      best = candidate
      bestDistance = d
    }
  }
  return best === undefined ? '' : ` ¿Quería decir '${best}'?`
}
