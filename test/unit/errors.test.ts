// Issue #18 item 8: one error type for what an operator must fix (OperatorError), with a stable
// code, the Spanish message the CLI and startup print, and its details; no ad-hoc classes.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import t from 'tap'
import { configInvalid, isOperatorError, migrationRefused, usageError, commandFailed } from '../../src/errors.js'

const SRC = new URL('../../src/', import.meta.url).pathname
const files = (dir: string): string[] => readdirSync(dir).flatMap((name) => {
  const path = join(dir, name)
  return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : []
})

t.test('issue #18: a configuration error lists every problem at file:line:column', async (t) => {
  const error = configInvalid([
    { file: 'modules.yaml', line: 5, column: 13, message: "Zona horaria desconocida 'Mars/Olympus'" },
    { file: 'modules.yaml', line: 9, column: 3, message: 'Falta la clave obligatoria' },
  ])
  t.ok(isOperatorError(error))
  t.match(error, { code: 'CONFIG_INVALID', exitCode: 1 })
  t.equal(error.message, "modules.yaml:5:13: Zona horaria desconocida 'Mars/Olympus'\nmodules.yaml:9:3: Falta la clave obligatoria")
})

t.test('issue #18: a refused migration lists its steps; a usage error exits with 2', async (t) => {
  t.match(migrationRefused('Los datos impiden el cambio', ['Quitar el campo x']),
    { code: 'MIGRATION_REFUSED', items: ['Quitar el campo x'], message: 'Los datos impiden el cambio:\n  - Quitar el campo x' })
  t.match(usageError('Falta --role <rol>'), { code: 'USAGE', exitCode: 2 })
  t.match(commandFailed('Las contraseñas no coinciden'), { code: 'COMMAND_FAILED', exitCode: 1 })
})

t.test('issue #18: errors.ts holds the only error classes of src/', async (t) => {
  for (const path of files(SRC).filter((p) => !p.endsWith('/errors.ts')))
    t.notMatch(readFileSync(path, 'utf8'), /class \w+ extends Error\b/, relative(SRC, path))
})
