// The data protection page tells a DPO which fields are encrypted (D14). Its
// table must be the shipped modules.yaml's, so an `encrypted: true` added or removed there
// without the page fails here.
import { readFileSync } from 'node:fs'
import t from 'tap'
import { parse } from 'yaml'

const ROOT = new URL('../../', import.meta.url).pathname

t.test("data-protection.md's table of encrypted fields is the shipped modules.yaml's", async (t) => {
  type Config = { modules: Record<string, { fields: Record<string, { encrypted?: boolean }> }> }
  const config = parse(readFileSync(`${ROOT}modules.yaml`, 'utf8')) as Config
  const shipped: Record<string, string[]> = {}
  for (const [name, module] of Object.entries(config.modules)) {
    const encrypted = Object.entries(module.fields)
      .filter(([, f]) => f.encrypted === true)
      .map(([name]) => name)
    if (encrypted.length > 0) shipped[name] = encrypted.sort()
  }
  const page = readFileSync(`${ROOT}docs/data-protection.md`, 'utf8')
  const table = page.slice(page.indexOf('| module | encrypted fields |'))
  const documented: Record<string, string[]> = {}
  for (const line of table.split('\n').slice(2)) {
    if (!line.startsWith('|')) break
    const [module = '', fields = ''] = line
      .split('|')
      .slice(1, 3)
      .map((cell) => cell.trim())
    documented[module.replaceAll('`', '')] = fields
      .split(',')
      .map((f) => f.trim().replaceAll('`', ''))
      .sort()
  }
  t.same(documented, shipped)
})
