// The data file of `records demo` (assets/demo-data.yaml): lists of realistic values and, per
// `module.field`, a template drawing from them. Read here so that no module or field name of
// modules.yaml lives in src/: the command knows field types and a few generators only.
import { readFileSync } from 'node:fs'
import { parse } from 'yaml'
import { commandFailed } from '../../errors.js'
import type { Random } from './seeded-random.js'
import { randomDni, randomPhone, randomPlate, randomVin } from './spanish-ids.js'

export type Template = string | readonly string[]

export interface DemoData {
  readonly lists: ReadonlyMap<string, readonly string[]>
  /** `module.field` -> a template (a list of them for an array field). */
  readonly fields: ReadonlyMap<string, Template>
}

/** The shipped file, from src/cli/demo/ (tests) or dist/src/cli/demo/ (the bin). */
export const SHIPPED_DEMO_DATA = ['../../../assets/demo-data.yaml', '../../../../assets/demo-data.yaml']

const isStrings = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((v) => typeof v === 'string' || typeof v === 'number')

/** Reads and checks the file; a wrong shape is an operator error naming what is wrong. */
export function loadDemoData(file: string | URL): DemoData {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch {
    throw commandFailed(`No se puede leer el fichero de datos de demostración '${String(file)}'`)
  }
  const doc = parse(text) as { lists?: unknown; fields?: unknown } | null
  const lists = new Map<string, string[]>()
  const fields = new Map<string, Template>()
  for (const [name, values] of Object.entries((doc?.lists ?? {}) as Record<string, unknown>)) {
    if (!isStrings(values) || values.length === 0)
      throw commandFailed(`Datos de demostración: la lista '${name}' debe ser una lista de textos no vacía`)
    lists.set(name, values.map(String))
  }
  for (const [name, template] of Object.entries((doc?.fields ?? {}) as Record<string, unknown>)) {
    if (typeof template !== 'string' && !isStrings(template))
      throw commandFailed(`Datos de demostración: '${name}' debe ser un texto o una lista de textos`)
    fields.set(name, typeof template === 'string' ? template : template.map(String))
  }
  return { lists, fields }
}

/** Fills a template's {placeholders}; `n` is the value's number within its field (from 1). */
export function renderTemplate(data: DemoData, template: string, random: Random, n: number, now: Date): string {
  return template.replace(/\{([a-z0-9_-]+)(?::([\d-]+))?\}/gi, (whole, name: string, width?: string) => {
    const size = width === undefined ? undefined : Number(width)
    switch (name) {
      case 'date': {
        const [from = 0, to = from] = (width ?? '0-1').split('-').map(Number)
        const ago = random.int(Math.round(from * 365.25), Math.round(to * 365.25)) * 86_400_000
        return new Date(now.getTime() - ago).toISOString().slice(0, 10)
      }
      case 'dni':
        return randomDni(random)
      case 'plate':
        return randomPlate(random)
      case 'phone':
        return randomPhone(random)
      case 'vin':
        return randomVin(random)
      case 'n':
        return String(n).padStart(size ?? 0, '0')
      case 'digits':
        return Array.from({ length: size ?? 1 }, () => String(random.int(0, 9))).join('')
      default: {
        const list = data.lists.get(name)
        if (list === undefined) throw commandFailed(`Datos de demostración: no hay una lista '${name}' (en ${whole})`)
        return random.pick(list)
      }
    }
  })
}
