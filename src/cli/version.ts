// `records --version`: package.json's version, read without loading the service (the whole
// point of the flag is to answer at once). From src/cli/ (tests) or dist/src/cli/ (the bin).
import { existsSync, readFileSync } from 'node:fs'

export function packageVersion(): string {
  for (const candidate of ['../../package.json', '../../../package.json']) {
    const file = new URL(candidate, import.meta.url)
    if (!existsSync(file)) continue
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string }
    if (pkg.name === 'municipal-records' && pkg.version !== undefined) return pkg.version
  }
  return '0.0.0'
}
