// A parsed YAML document that can answer "where is this path?" for error messages.
import { LineCounter, isMap, isPair, isScalar, isSeq, parseDocument, type Document } from 'yaml'
import type { ConfigProblem } from '../errors.js'
import { yamlErrorMessage } from './yaml-errors.js'

export type YamlPath = readonly (string | number)[]

export interface YamlSource {
  readonly file: string
  readonly value: unknown
  readonly syntaxProblems: readonly ConfigProblem[]
  /** A problem located at the value of `path`, or at its key when `atKey` is set. */
  problem(path: YamlPath, message: string, atKey?: boolean): ConfigProblem
}

export function parseYamlSource(text: string, file: string): YamlSource {
  const lineCounter = new LineCounter()
  const doc: Document = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false })
  const at = (offset: number): { line: number; column: number } => {
    const pos = lineCounter.linePos(offset)
    return { line: pos.line, column: pos.col }
  }
  const syntaxProblems = [...doc.errors].map((error) => ({
    file,
    ...at(error.pos[0]),
    message: yamlErrorMessage(error),
  }))

  const offsetOf = (path: YamlPath, atKey: boolean): number => {
    let node: unknown = doc.contents
    let offset = 0
    for (const segment of path) {
      if (!isMap(node) && !(node !== null && typeof node === 'object' && 'items' in node)) break
      const items = (node as { items: unknown[] }).items
      // ajv's instancePath names a list item with a string ('0'), the rules with a number.
      const item =
        typeof segment === 'number' || isSeq(node)
          ? items[Number(segment)]
          : items.find((i) => isPair(i) && isScalar(i.key) && i.key.value === segment)
      if (item === undefined) break
      if (isPair(item)) {
        const keyRange = isScalar(item.key) ? item.key.range : undefined
        const valueRange = (item.value as { range?: [number, number, number] } | null)?.range
        offset =
          (segment === path[path.length - 1] && atKey ? keyRange?.[0] : (valueRange?.[0] ?? keyRange?.[0])) ?? offset
        node = item.value
      } else {
        offset = (item as { range?: [number, number, number] }).range?.[0] ?? offset
        node = item
      }
    }
    return offset
  }

  return {
    file,
    value: syntaxProblems.length > 0 ? undefined : doc.toJS({ maxAliasCount: 100 }),
    syntaxProblems,
    problem: (path, message, atKey = false) => ({ file, ...at(offsetOf(path, atKey)), message }),
  }
}
