// `records export <module>`: every live record as the API lists it (masked unless --decrypt,
// whose reads are audited as 'consultar' like the API's), in CSV or JSON Lines.
import { createWriteStream } from 'node:fs'
import { resolve } from 'node:path'
import { stringify } from 'csv-stringify/sync'
import { META } from '../../compile/metadata.js'
import type { ModuleSpec } from '../../compile/types.js'
import type { ApiRecord } from '../../db/record-store.js'
import { flag, stringOption, type Command } from '../command.js'
import { neutraliseFormula } from '../csv-formula.js'
import { actingUserNamed, moduleNamed, withEnvironment } from '../environment.js'
import { hiddenFields } from '../../records/field-rules.js'
import { formatOf } from '../import-rows.js'

const PAGE = 1000

const columnsOf = (spec: ModuleSpec): string[] => [
  META.id,
  ...spec.fields.filter((f) => !f.writeOnly).map((f) => f.name),
  META.created,
  META.createdBy,
  META.modified,
  META.modifiedBy,
  META.version,
  META.hash,
]

/** Numbers and booleans are written as they are (`-5` is a number, not a formula); text is neutralised. */
const cell = (value: unknown): string =>
  value === null || value === undefined
    ? ''
    : typeof value === 'object'
      ? JSON.stringify(value)
      : typeof value === 'string'
        ? neutraliseFormula(value)
        : String(value)

/** A reader that stopped reading (`records export m | head`) ends the export quietly: EPIPE. */
const isBrokenPipe = (error: unknown): boolean => (error as { code?: string } | null)?.code === 'EPIPE'

const exportCommand: Command = {
  name: 'export',
  summary: 'Vuelca los registros vigentes de un módulo en CSV o JSON Lines',
  help: `
Uso: records export <módulo> [--out fichero] [--format csv|jsonl] [--decrypt] [--as usuario]

Escribe cada registro vigente (no eliminado) del módulo, en orden de creación, como lo
devuelve la API: campos y metadatos (_id, _created, _version, _hash...). Los campos cifrados
salen como '***' salvo con --decrypt, que los descifra y anota cada lectura en la auditoría
('consultar', actor cli:<usuario>), igual que una consulta por la API con permiso descifrar.
CSV: cabecera con los nombres; listas y objetos como JSON. Un texto que empieza por =, +, -, @,
tabulador o retorno de carro sale precedido de ' para que una hoja de cálculo no lo ejecute
como fórmula (records import quita esa '). El resultado se puede importar (con --new-ids,
porque trae _id; los campos cifrados solo con --decrypt). Si quien lee la salida deja de
leer (records export m | head), termina sin error.

  --out fichero        por defecto la salida estándar
  --format csv|jsonl   por defecto según la extensión de --out, si no CSV
  --decrypt            descifra los campos cifrados (lectura auditada)
  --as usuario         exporta lo que ese usuario ve por la API: el ámbito de su rol y sin
                       los campos que no puede leer (access: de modules.yaml); sin --as, todo`,
  options: {
    out: { type: 'string' },
    format: { type: 'string' },
    decrypt: { type: 'boolean' },
    as: { type: 'string' },
  },
  positionals: { min: 1, max: 1 },
  async run(input) {
    const out = stringOption(input, 'out')
    const format = formatOf(stringOption(input, 'format'), out)
    return withEnvironment(input, async (env) => {
      const spec = moduleNamed(env.spec, input.positionals[0] ?? '')
      const as = stringOption(input, 'as')
      const user = as === undefined ? null : await actingUserNamed(env, as)
      const hidden = hiddenFields(spec, user)
      const columns = columnsOf(spec).filter((c) => hidden === undefined || !hidden.has(c))
      const stream = out === undefined ? input.stdout : createWriteStream(resolve(input.cwd, out), { mode: 0o600 })
      let broken = false
      let failure: unknown
      stream.on('error', (error: unknown) => {
        if (isBrokenPipe(error)) broken = true
        else failure ??= error
      })
      const write = (text: string) =>
        new Promise<void>((done, fail) => {
          if (broken) return done()
          if (failure !== undefined) return fail(failure)
          const settle = () => {
            stream.off('drain', settle).off('error', settle).off('close', settle)
            if (failure !== undefined) fail(failure)
            else done()
          }
          if (stream.write(text)) done()
          else stream.on('drain', settle).on('error', settle).on('close', settle)
        })
      if (format === 'csv') await write(stringify([columns]))
      let count = 0
      for (let offset = 0; ; offset += PAGE) {
        const { records } = await env.store.list(
          spec,
          {
            limit: PAGE,
            offset,
            filters: [],
            sort: [],
            fields: undefined,
            filtersEncrypted: false,
          },
          { reveal: flag(input, 'decrypt'), actor: env.actor, user },
        )
        if (records.length === 0 || broken) break
        count += records.length
        await write(
          format === 'csv'
            ? stringify(records.map((r: ApiRecord) => columns.map((c) => cell(r[c]))))
            : records.map((r) => `${JSON.stringify(r)}\n`).join(''),
        )
      }
      if (failure !== undefined) throw failure
      if (out !== undefined) {
        await new Promise<void>((done) => stream.end(done))
        input.stderr.write(`${count} registros exportados de '${spec.name}' a ${out}\n`)
      }
      return 0
    })
  },
}

export const commands = [exportCommand]
