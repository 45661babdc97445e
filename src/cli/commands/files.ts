// `records files verify [--json]` (D43): every stored evidence file decrypted and re-hashed against
// the SHA-256 taken at its upload; each check is a custody entry in the audit chain. Exit 1 on
// any file that differs or cannot be read.
import { JSON_OPTION, flag, type Command } from '../command.js'
import { cliActor, withEnvironment } from '../environment.js'
import { printJson, printLines } from '../output.js'
import { countOf } from '../plural.js'

const verify: Command = {
  name: 'files verify',
  summary: 'Comprueba que cada fichero de prueba guardado conserva el SHA-256 de su subida (sale con 1 si alguno no)',
  help: `
Uso: records files verify [--json]

Descifra cada fichero de los campos de tipo file (D43) y calcula de nuevo su SHA-256 y su tamaño;
los compara con los de su subida. Cada comprobación queda en la auditoría como una entrada
'fichero_verificacion' de la cadena de custodia del fichero (correcto o alterado), a nombre de
quien ejecuta el comando. Sale con 1 si algún fichero no coincide o no se puede leer.

  --json  {"total", "altered", "files": [{"module", "recordId", "field", "n", "ok", "problem"?}]}`,
  options: JSON_OPTION,
  positionals: { min: 0, max: 0 },
  async run(input) {
    return withEnvironment(input, async (env) => {
      const results = await env.files.verify(cliActor())
      const altered = results.filter((r) => !r.ok)
      if (flag(input, 'json')) printJson(input, { total: results.length, altered: altered.length, files: results })
      else
        printLines(input, [
          `Ficheros comprobados: ${results.length}; ${countOf(altered.length, 'alterados', 'alterado')}`,
          ...altered.map((r) => `  ALTERADO ${r.module}/${r.recordId}/${r.field}/${r.n}: ${r.problem ?? ''}`),
        ])
      return altered.length > 0 ? 1 : 0
    })
  },
}

export const commands = [verify]
