// `records import <module> [file]`: bulk load through the API's validation (same messages),
// the store's one insert path (ids, encryption, blind indexes, hashes, audit) in one
// transaction: every bad row is reported and nothing is imported unless --skip-invalid.
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { isAppError, commandFailed } from '../../errors.js'
import type { Row } from '../../db/database.js'
import { createBodyAjv, createBodyValidator } from '../../records/body-validator.js'
import { JSON_OPTION, flag, stringOption, type Command, type CommandInput } from '../command.js'
import { moduleNamed, withEnvironment } from '../environment.js'
import { formatOf, readImportRows } from '../import-rows.js'
import { createProgress, printJson, printLines } from '../output.js'
import { findDuplicates } from '../unique-rows.js'

interface Rejected {
  readonly line: number
  readonly reason: string
}

/** The API's error for a body, as one line: message plus details it does not already say. */
function reasonOf(error: unknown): string {
  if (!isAppError(error)) throw error
  const extra = (error.details ?? []).map((d) => d.message).filter((m) => !error.message.includes(m))
  return extra.length === 0 ? error.message : `${error.message}: ${extra.join('; ')}`
}

async function readInput(input: CommandInput, file: string | undefined): Promise<string> {
  if (file !== undefined && file !== '-') {
    try {
      return readFileSync(resolve(input.cwd, file), 'utf8')
    } catch {
      throw commandFailed(`No se puede leer '${file}'`)
    }
  }
  let text = ''
  for await (const chunk of input.stdin) text += String(chunk)
  return text
}

const importCommand: Command = {
  name: 'import',
  summary: 'Carga registros de un módulo desde CSV o JSON Lines, con la validación de la API',
  help: `
Uso: records import <módulo> [fichero|-] [--format csv|jsonl] [--skip-invalid] [--json]

Lee el fichero (o la entrada estándar) y crea un registro por fila con la misma validación,
valores por defecto, cifrado, índices ciegos, _hash y auditoría ('crear', actor cli:<usuario>)
que POST /api/<módulo>. CSV: la primera fila nombra los campos; una celda vacía es un campo
ausente; listas y objetos van como JSON. JSON Lines: un objeto por línea. Las columnas de
metadatos (_id, _created...) y los valores '***' se ignoran, como en la API: un fichero de
records export se puede volver a importar.

Se comprueban todas las filas antes de escribir: cada fila rechazada se informa con su línea y
el mensaje que daría la API (también valores repetidos en campos únicos). Si hay alguna, no se
importa nada, salvo con --skip-invalid, que importa las válidas. La escritura es una sola
transacción (por lotes): un fallo a mitad no deja nada a medias. En una terminal muestra una
barra de progreso en la salida de errores.

  --format csv|jsonl   por defecto según la extensión (.jsonl/.json), si no CSV
  --skip-invalid       importa las filas válidas y lista las rechazadas
  --json               {"module", "total", "imported", "rejected": [{line, reason}]}

Salida: 0 si se importó; 1 si hubo filas rechazadas sin --skip-invalid (nada importado).`,
  options: { ...JSON_OPTION, format: { type: 'string' }, 'skip-invalid': { type: 'boolean' } },
  positionals: { min: 1, max: 2 },
  async run(input) {
    const [moduleName = '', file] = input.positionals
    const format = formatOf(stringOption(input, 'format'), file)
    const text = await readInput(input, file)
    return withEnvironment(input, async (env) => {
      const spec = moduleNamed(env.spec, moduleName)
      const validator = createBodyValidator(spec, createBodyAjv())
      const rows = readImportRows(spec, text, format)
      const rejected: Rejected[] = []
      const valid: { line: number; values: Row }[] = []
      for (const row of rows) {
        if (row.problem !== undefined) rejected.push({ line: row.line, reason: row.problem })
        else try {
          valid.push({ line: row.line, values: validator.create(row.body) })
        } catch (error) {
          rejected.push({ line: row.line, reason: reasonOf(error) })
        }
      }
      const duplicates = await findDuplicates(env, spec, valid)
      rejected.push(...duplicates)
      rejected.sort((a, b) => a.line - b.line)
      const bad = new Set(duplicates.map((d) => d.line))
      const accepted = valid.filter((v) => !bad.has(v.line))
      const skip = flag(input, 'skip-invalid')
      let imported = 0
      if (rejected.length === 0 || skip) {
        const progress = createProgress(input, `Importando ${spec.name}`, accepted.length)
        imported = await env.store.createMany(spec, accepted.map((v) => v.values), { actor: env.actor, onProgress: (n) => progress.update(n) })
        progress.finish()
      }
      if (flag(input, 'json')) printJson(input, { module: spec.name, total: rows.length, imported, rejected })
      else printLines(input, [
        ...rejected.map((r) => `línea ${r.line}: ${r.reason}`),
        rejected.length > 0 && !skip
          ? `${rejected.length} de ${rows.length} filas rechazadas: no se ha importado nada (use --skip-invalid para importar las válidas)`
          : `${imported} registros importados en '${spec.name}'${rejected.length > 0 ? `; ${rejected.length} filas rechazadas` : ''}`,
      ])
      return rejected.length > 0 && !skip ? 1 : 0
    })
  },
}

export const commands = [importCommand]
