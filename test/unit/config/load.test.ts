// Reading modules.yaml from disk: a missing or invalid file is one operator error (CONFIG_INVALID)
// listing every problem.
import t from 'tap'
import { fileURLToPath } from 'node:url'
import { loadModulesConfig } from '../../../src/config/load.js'
import { isOperatorError } from '../../../src/errors.js'
import { FIXTURES, SHIPPED_MODULES } from '../support/config.js'

t.test('D1: the shipped MODULES_FILE loads', async (t) => {
  t.equal(loadModulesConfig(fileURLToPath(SHIPPED_MODULES)).modules.length, 9)
})

t.test('D1: a missing file is a configuration error that says so', async (t) => {
  const file = '/nonexistent/modules.yaml'
  const message = 'No se puede cargar la definición de módulos: el fichero no existe'
  t.throws(() => loadModulesConfig(file), {
    name: 'OperatorError', code: 'CONFIG_INVALID', problems: [{ file, line: 1, column: 1, message }],
    message: `${file}:1:1: ${message}`,
  })
})

t.test('STYLE 4: an invalid file throws one configuration error with every problem as file:line:column', async (t) => {
  const file = fileURLToPath(new URL('invalid/three-rule-problems.yaml', FIXTURES))
  try {
    loadModulesConfig(file)
    t.fail('expected a configuration error')
  } catch (error) {
    if (!isOperatorError(error) || error.code !== 'CONFIG_INVALID') throw error
    t.equal(error.problems.length, 3)
    t.equal(error.message.split('\n').length, 3)
    t.match(error.message, `${file}:5:13: Zona horaria desconocida 'Mars/Olympus'`)
  }
})
