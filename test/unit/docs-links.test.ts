// The documentation is a set that holds together in a clone. Every relative
// link and #anchor of README.md and docs/*.md resolves (a file that exists, a heading that
// exists, with GitHub's anchor rules), nothing points outside the repository's own text
// (`../shared/spec`), every source path named in inline code exists, and every D-number cited
// in the docs is defined in docs/decisions.md.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import t from 'tap'

const ROOT = new URL('../../', import.meta.url).pathname
const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
]

/** The text outside fenced code blocks and inline code, where links are links. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1\s*$/gm, '').replace(/`[^`\n]*`/g, '')
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to dashes, repeats numbered. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  const withoutCode = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1\s*$/gm, '')
  for (const match of withoutCode.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const text = (match[1] as string).replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
      .replace(/ /g, '-')
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    anchors.add(count === 0 ? base : `${base}-${count}`)
  }
  for (const match of markdown.matchAll(/<a (?:name|id)="([^"]+)"/g)) anchors.add(match[1] as string)
  return anchors
}

t.test('every relative link and #anchor in README.md and docs/ resolves', async (t) => {
  let checked = 0
  for (const page of PAGES) {
    const text = prose(readFileSync(join(ROOT, page), 'utf8'))
    for (const match of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1] as string
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue // http:, https:, mailto:
      const [path = '', anchor] = target.split('#') as [string, string | undefined]
      const file = path === '' ? join(ROOT, page) : join(ROOT, dirname(page), path)
      checked++
      if (!existsSync(file)) {
        t.fail(`${page}: ${target}: no file ${relative(ROOT, file)}`)
        continue
      }
      if (anchor !== undefined && file.endsWith('.md'))
        t.ok(anchorsOf(readFileSync(file, 'utf8')).has(anchor), `${page}: ${target}: a heading with anchor #${anchor}`)
    }
  }
  t.ok(checked > 30, `links checked: ${checked}`)
})

t.test('every source path the docs name in inline code exists', async (t) => {
  for (const page of PAGES) {
    const text = readFileSync(join(ROOT, page), 'utf8')
    for (const match of text.matchAll(/`((?:src|test|scripts|schema|bin)\/[\w./-]+)`/g)) {
      const path = (match[1] as string).replace(/\/$/, '')
      t.ok(existsSync(join(ROOT, path)), `${page}: ${path}`)
    }
  }
})

t.test('the docs never point at the specification outside the repository', async (t) => {
  for (const page of PAGES) t.notMatch(readFileSync(join(ROOT, page), 'utf8'), /shared\/spec/, page)
})

t.test('every D-number cited in README.md and docs/ is defined in docs/decisions.md', async (t) => {
  const decisions = readFileSync(join(ROOT, 'docs/decisions.md'), 'utf8')
  const defined = new Set([...decisions.matchAll(/^#{2,4} (D\d+)\b/gm)].map((m) => m[1]))
  t.ok(defined.size >= 25, `decisions defined: ${defined.size}`)
  for (const page of PAGES) {
    const text = readFileSync(join(ROOT, page), 'utf8')
    const cited = new Set([...text.matchAll(/\bD(\d{1,2})\b/g)].map((m) => `D${m[1]}`))
    for (const d of cited) t.ok(defined.has(d), `${page} cites ${d}`)
  }
})
