// `records import <module> [file]`: bulk load through the API's validation (same messages),
// the store's one insert path (ids, encryption, blind indexes, hashes, audit) in one
// transaction: every bad row is reported and nothing is imported unless --skip-invalid.
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { isAppError, commandFailed } from '../../errors.js'
import type { Row } from '../../db/database.js'
import type { RecordOrigin } from '../../db/records/types.js'
import { formatTimestamp } from '../../compile/time.js'
import { createBodyAjv, createBodyValidator } from '../../records/body-validator.js'
import { JSON_OPTION, flag, stringOption, type Command, type CommandInput } from '../command.js'
import { moduleNamed, withEnvironment } from '../environment.js'
import { originOf } from '../import-origin.js'
import { formatOf, readImportRows } from '../import-rows.js'
import { describeGroup, groupRejections, hasId, ID_REFUSED, maskedProblem, type Rejected } from '../import-report.js'
import { createProgress, printJson, printLines } from '../output.js'
import { findDuplicates } from '../unique-rows.js'

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
Uso: records import <módulo> [fichero|-] [--format csv|jsonl] [--new-ids] [--keep-origin] [--skip-invalid] [--json]

Lee el fichero (o la entrada estándar) y crea un registro por fila con la misma validación,
valores por defecto, cifrado, índices ciegos, _hash y auditoría ('importar', actor cli:<usuario>)
que POST /api/<módulo>. CSV: la primera fila nombra los campos, separados por ',' o por ';'
(se detecta en la cabecera; con ';' los decimales pueden llevar coma); una celda vacía es un
campo ausente; listas y objetos van como JSON; la ' que records export antepone a un texto que
empieza por =, +, -, @ se quita. JSON Lines: un objeto por línea. Las demás columnas de
metadatos (_created, _version...) se ignoran, como en la API, salvo con --keep-origin. A diferencia de la API, un registro
puede llegar en cualquier estado de su workflow (registros históricos): queda anotado como 'importar'.

Un fichero de records export se puede volver a importar, con dos condiciones:
  - trae _id: import siempre crea registros nuevos con identificadores nuevos (no actualiza
    los existentes); sin --new-ids se niega, para no duplicar sin querer lo que ya existe;
  - un campo cifrado exportado sin --decrypt vale '***': esas filas se rechazan (el valor no
    está en el fichero); exporte con --decrypt.

Se comprueban todas las filas antes de escribir: cada fila rechazada se informa con su línea y
el mensaje que daría la API (también valores repetidos en campos únicos); los rechazos del
mismo tipo se agrupan en una línea con el número de filas y las primeras líneas. Si hay
alguno, no se importa nada, salvo con --skip-invalid, que importa las válidas. La escritura es
una sola transacción (por lotes): un fallo a mitad no deja nada a medias. En una terminal
muestra una barra de progreso en la salida de errores.

  --format csv|jsonl   por defecto según la extensión (.jsonl/.json), si no CSV
  --new-ids            importa un fichero con _id creando registros nuevos (el _id se ignora)
  --keep-origin        migración desde un sistema anterior: cada fila trae _created (AAAA-MM-DD
                       HH:MM:SS, hora del servicio, no futura) y _created_by (el autor en el sistema
                       anterior, texto libre); se guardan como fecha y autor de creación, el autor
                       como 'legado:<autor>', y la entrada 'importar' nombra _created y _created_by
                       entre sus campos. _modified queda como el momento de la importación.
  --skip-invalid       importa las filas válidas y lista las rechazadas
  --json               {"module", "total", "imported", "rejected": [{line, reason}],
                        "groups": [{reason, count, lines}]}

Salida: 0 si se importó; 1 si hubo filas rechazadas sin --skip-invalid (nada importado).`,
  options: {
    ...JSON_OPTION,
    format: { type: 'string' },
    'skip-invalid': { type: 'boolean' },
    'new-ids': { type: 'boolean' },
    'keep-origin': { type: 'boolean' },
  },
  positionals: { min: 1, max: 2 },
  async run(input) {
    const [moduleName = '', file] = input.positionals
    const format = formatOf(stringOption(input, 'format'), file)
    const text = await readInput(input, file)
    return withEnvironment(input, async (env) => {
      const spec = moduleNamed(env.spec, moduleName)
      const validator = createBodyValidator(spec, createBodyAjv())
      // Accounts get the API's account rules too: canonical username, password policy.
      const accountRules = spec === env.spec.accounts.spec ? env.accountRules : undefined
      const rows = readImportRows(spec, text, format)
      if (!flag(input, 'new-ids') && rows.some((r) => hasId(r.body))) throw commandFailed(ID_REFUSED)
      const rejected: Rejected[] = []
      const valid: { line: number; values: Row; origin?: RecordOrigin }[] = []
      const now = formatTimestamp(env.clock(), env.spec.service.timezone)
      const keepOrigin = flag(input, 'keep-origin')
      for (const row of rows) {
        const kept = keepOrigin ? originOf(row.body, now) : undefined
        const problem =
          row.problem ?? maskedProblem(spec, row.body) ?? (kept && 'problem' in kept ? kept.problem : undefined)
        if (problem !== undefined) rejected.push({ line: row.line, reason: problem })
        else
          try {
            const values = validator.create(row.body)
            const origin = kept !== undefined && 'origin' in kept ? kept.origin : undefined
            valid.push({
              line: row.line,
              values: accountRules === undefined ? values : accountRules.check(values),
              ...(origin === undefined ? {} : { origin }),
            })
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
        imported = await env.store.createMany(
          spec,
          accepted.map((v) => v.values),
          { actor: env.actor, onProgress: (n) => progress.update(n), origins: accepted.map((v) => v.origin) },
        )
        progress.finish()
      }
      const groups = groupRejections(rejected)
      if (flag(input, 'json')) printJson(input, { module: spec.name, total: rows.length, imported, rejected, groups })
      else
        printLines(input, [
          ...groups.map(describeGroup),
          rejected.length > 0 && !skip
            ? `${rejected.length} de ${rows.length} filas rechazadas: no se ha importado nada (use --skip-invalid para importar las válidas)`
            : `${imported} registros importados en '${spec.name}'${rejected.length > 0 ? `; ${rejected.length} filas rechazadas` : ''}`,
        ])
      return rejected.length > 0 && !skip ? 1 : 0
    })
  },
}

export const commands = [importCommand]
