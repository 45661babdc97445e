// `records openapi [--out file]`: the OpenAPI 3.1 document generated from modules.yaml, the
// same one the service serves at GET {BASE_PATH}/openapi.json (D3), without starting it.
import { existsSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { compileService } from '../../compile/service.js'
import { loadModulesConfig } from '../../config/load.js'
import { buildOpenApiDocument } from '../../openapi/document.js'
import { basePathOf } from '../../app/settings.js'
import { flag, stringOption, type Command } from '../command.js'
import { commandFailed } from '../../errors.js'

const openapi: Command = {
  name: 'openapi',
  summary: 'Escribe el documento OpenAPI 3.1 generado desde modules.yaml',
  help: `
Uso: records openapi [--out fichero] [--force]

Genera el documento OpenAPI 3.1 de la definición de módulos (MODULES_FILE o ./modules.yaml)
con las rutas bajo BASE_PATH: el mismo que sirve GET {BASE_PATH}/openapi.json. No abre la
base de datos ni arranca el servicio.

  --out fichero   lo escribe en el fichero en vez de en la salida estándar
  --force         sobrescribe el fichero si ya existe

Salida: 0 si lo escribe; 1 si modules.yaml no es válido o el fichero ya existe sin --force.`,
  options: { out: { type: 'string' }, force: { type: 'boolean' } },
  positionals: { min: 0, max: 0 },
  async run(input) {
    const spec = compileService(loadModulesConfig(resolve(input.cwd, input.env['MODULES_FILE'] || './modules.yaml')))
    // Loaded on use: app/service.ts brings Fastify, which other subcommands do not need.
    const { serviceVersion } = await import('../../app/service.js')
    const document = buildOpenApiDocument(spec, { basePath: basePathOf(input.env), version: serviceVersion() })
    const text = `${JSON.stringify(document, null, 2)}\n`
    const out = stringOption(input, 'out')
    if (out === undefined) {
      input.stdout.write(text)
      return 0
    }
    const file = resolve(input.cwd, out)
    if (existsSync(file) && !flag(input, 'force')) throw commandFailed(`'${file}' ya existe: use --force para sobrescribirlo`)
    writeFileSync(file, text)
    input.stderr.write(`Documento OpenAPI escrito en ${file} (${Object.keys(document.paths).length} rutas)\n`)
    return 0
  },
}

export const commands = [openapi]
