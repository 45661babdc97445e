// `records demo`: an empty database filled with realistic records of every module, so the API,
// the docs page and the console have something to show. Refused on a database that has records.
import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { commandFailed } from '../../errors.js'
import { JSON_OPTION, flag, stringOption, type Command } from '../command.js'
import { loadDemoData, SHIPPED_DEMO_DATA, type DemoData } from '../demo/demo-data.js'
import { createDemoRecords, demoRefusal } from '../demo/demo-records.js'
import { createRandom } from '../demo/seeded-random.js'
import { withEnvironment } from '../environment.js'
import { printJson, printLines } from '../output.js'

const MAX_COUNT = 1000
const DEFAULT_COUNT = 10

function countOf(text: string | undefined): number {
  if (text === undefined) return DEFAULT_COUNT
  const count = Number(text)
  if (!Number.isInteger(count) || count < 1 || count > MAX_COUNT)
    throw commandFailed(`--count debe ser un número entero entre 1 y ${MAX_COUNT} (recibido '${text}')`)
  return count
}

function dataOf(file: string | undefined, cwd: string): DemoData {
  if (file !== undefined) return loadDemoData(resolve(cwd, file))
  const shipped = SHIPPED_DEMO_DATA.map((c) => new URL(c, import.meta.url)).find((u) => existsSync(u))
  if (shipped === undefined) throw commandFailed('No se encuentra assets/demo-data.yaml: use --data <fichero>')
  return loadDemoData(shipped)
}

const demoCommand: Command = {
  name: 'demo',
  summary: 'Llena una base de datos vacía con registros de demostración de cada módulo',
  help: `
Uso: records demo [--count N] [--seed texto] [--data fichero] [--json]

Para probar el servicio, no para producción. Crea en cada módulo de modules.yaml N registros
realistas (10 por defecto, hasta ${MAX_COUNT}) por el mismo camino que la API: identificadores,
cifrado, _hash y auditoría ('crear' y 'editar', actor cli:<usuario>). Los valores salen de
assets/demo-data.yaml (nombres y apellidos españoles, DNI con su letra, matrículas, teléfonos...)
y, para los campos que no nombra, de su declaración (enum, ejemplos, formato, límites, tipo);
las referencias apuntan a registros creados antes, y cada registro nace en un estado de
creación de su workflow y avanza por movimientos permitidos.

En el módulo de cuentas crea una cuenta por rol (salvo los que tienen todos los permisos),
demo.<rol>, enlazada a un registro de personal, con una contraseña aleatoria que se muestra
una sola vez. Una base de datos con estas cuentas no debe ponerse en producción.

Se niega (y no escribe nada) si algún módulo tiene registros, aparte de la primera cuenta, o si
aún no existe esa primera cuenta (arranque antes el servicio una vez, o records user add).

  --count N      registros por módulo (1..${MAX_COUNT}, por defecto ${DEFAULT_COUNT})
  --seed texto   repite los mismos datos (las fechas son relativas al día; las contraseñas
                 son siempre aleatorias)
  --data fichero otro fichero con la forma de assets/demo-data.yaml
  --json         {"seed", "created": [{module, records}], "accounts": [{username, role, password}]}`,
  options: { ...JSON_OPTION, count: { type: 'string' }, seed: { type: 'string' }, data: { type: 'string' } },
  positionals: { min: 0, max: 0 },
  async run(input) {
    const count = countOf(stringOption(input, 'count'))
    const data = dataOf(stringOption(input, 'data'), input.cwd)
    const seed = stringOption(input, 'seed') ?? randomBytes(6).toString('hex')
    return withEnvironment(input, async (env) => {
      const refusal = await demoRefusal(env)
      if (refusal !== undefined) throw commandFailed(refusal)
      const result = await createDemoRecords({ env, data, random: createRandom(seed), count })
      if (flag(input, 'json')) printJson(input, { seed, ...result })
      else
        printLines(input, [
          ...result.created.map((c) => `${c.module}: ${c.records} registros`),
          `Semilla: ${seed} (records demo --seed ${seed} repite los mismos datos)`,
          'Cuentas de demostración (las contraseñas no se vuelven a mostrar; no use estos datos en producción):',
          ...result.accounts.map((a) => `  ${a.username}  ${a.role}  ${a.password}`),
        ])
      return 0
    })
  },
}

export const commands = [demoCommand]
