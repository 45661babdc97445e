// Reading modules.yaml from disk: a missing or invalid file is a ConfigError listing every problem.
import t from 'tap'
import { fileURLToPath } from 'node:url'
import { loadModulesConfig } from '../../../src/config/load.js'
import { ConfigError } from '../../../src/errors.js'
import { FIXTURES, SHIPPED_MODULES } from '../support/config.js'

t.test('D1: the shipped MODULES_FILE loads', async (t) => {
  t.equal(loadModulesConfig(fileURLToPath(SHIPPED_MODULES)).modules.length, 9)
})

t.test('D1: a missing file is a ConfigError that says so', async (t) => {
  const file = '/nonexistent/modules.yaml'
  t.throws(() => loadModulesConfig(file), new ConfigError([
    { file, line: 1, column: 1, message: 'No se puede cargar la definición de módulos: el fichero no existe' },
  ]))
})

t.test('STYLE 4: an invalid file throws one ConfigError with every problem as file:line:column', async (t) => {
  const file = fileURLToPath(new URL('invalid/three-rule-problems.yaml', FIXTURES))
  try {
    loadModulesConfig(file)
    t.fail('expected a ConfigError')
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    t.equal(error.problems.length, 3)
    t.equal(error.message.split('\n').length, 3)
    t.match(error.message, `${file}:5:13: Zona horaria desconocida 'Mars/Olympus'`)
  }
})
