// `records export <module>`: every live record as the API lists it (masked unless --decrypt),
// in CSV or JSON Lines; a disclosure, logged as one 'comunicar' entry naming its recipient
// and reason.
import { openExportOutput } from '../export-output.js'
import { stringify } from 'csv-stringify/sync'
import { META } from '../../compile/metadata.js'
import type { ModuleSpec, ServiceSpec } from '../../compile/types.js'
import type { ApiRecord } from '../../db/records/types.js'
import { flag, stringOption, type Command } from '../command.js'
import { neutraliseFormula } from '../csv-formula.js'
import { actingUserNamed, moduleNamed, withEnvironment } from '../environment.js'
import { hiddenFields } from '../../records/field-rules.js'
import { formatOf } from '../import-rows.js'
import { commandFailed, MOTIVO_MAX_LENGTH } from '../../errors.js'
import { disclosureOf } from '../disclosure.js'
import type { ActingUser } from '../../records/acting-user.js'

const PAGE = 1000

/**
 * `--as` is exactly what the user gets through the API (F11): without `{module}.ver` nothing,
 * and `--decrypt` only for a user holding `{module}.descifrar` (else their API shows `***`).
 */
function checkExportAs(service: ServiceSpec, spec: ModuleSpec, user: ActingUser, username: string, decrypt: boolean) {
  const granted = service.roles.get(user.role)?.granted
  const lacks = (permission: string) => granted === undefined || !granted.has(permission)
  if (lacks(spec.permissions.ver))
    throw commandFailed(
      `El usuario '${username}' (rol ${user.role}) no tiene el permiso '${spec.permissions.ver}': por la API no ve ningún registro de '${spec.name}'`,
    )
  if (decrypt && lacks(spec.permissions.descifrar))
    throw commandFailed(
      `--decrypt con --as: el usuario '${username}' (rol ${user.role}) no tiene el permiso '${spec.permissions.descifrar}' y por la API ve los campos cifrados como '***'; exporte sin --decrypt`,
    )
}

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

const exportCommand: Command = {
  name: 'export',
  summary: 'Vuelca los registros vigentes de un módulo en CSV o JSON Lines',
  help: `
Uso: records export <módulo> --destinatario quién --motivo por-qué [--out fichero]
                      [--format csv|jsonl] [--decrypt] [--as usuario]

Escribe cada registro vigente (no eliminado) del módulo, en orden de creación, como lo
devuelve la API: campos y metadatos (_id, _created, _version, _hash...). Los campos cifrados
salen como '***' salvo con --decrypt, que los descifra. Una exportación es una comunicación de
datos: exige --destinatario y --motivo y deja en la auditoría una entrada 'comunicar' (actor
cli:<usuario>) con el destinatario, el motivo, los campos y los ids exportados.
CSV: cabecera con los nombres; listas y objetos como JSON. Un texto que empieza por =, +, -, @,
tabulador o retorno de carro sale precedido de ' para que una hoja de cálculo no lo ejecute
como fórmula (records import quita esa '). El resultado se puede importar (con --new-ids,
porque trae _id; los campos cifrados solo con --decrypt). Si quien lee la salida deja de
leer (records export m | head), termina sin error.

  --destinatario quién a quién se entregan los datos (p. ej. 'Juzgado de Instrucción n.º 2')
  --motivo por-qué     la justificación (p. ej. 'Diligencias previas 123/2026'), hasta ${MOTIVO_MAX_LENGTH} caracteres
  --out fichero        por defecto la salida estándar
  --format csv|jsonl   por defecto según la extensión de --out, si no CSV
  --decrypt            descifra los campos cifrados (con --as, solo si el usuario tiene
                       <módulo>.descifrar; si no, la orden falla sin exportar nada)
  --as usuario         exporta exactamente lo que ese usuario activo ve por la API: nada sin
                       <módulo>.ver (la orden falla), el ámbito de su rol, sin los campos que
                       no puede leer (access: de modules.yaml); sin --as, todo. La entrada
                       'comunicar' sigue siendo del operador y nombra al usuario (como, como_id)`,
  options: {
    out: { type: 'string' },
    format: { type: 'string' },
    decrypt: { type: 'boolean' },
    as: { type: 'string' },
    destinatario: { type: 'string' },
    motivo: { type: 'string' },
  },
  positionals: { min: 1, max: 1 },
  async run(input) {
    const out = stringOption(input, 'out')
    const format = formatOf(stringOption(input, 'format'), out)
    const disclosure = disclosureOf(stringOption(input, 'destinatario'), stringOption(input, 'motivo'))
    return withEnvironment(input, async (env) => {
      const spec = moduleNamed(env.spec, input.positionals[0] ?? '')
      const as = stringOption(input, 'as')
      const user = as === undefined ? null : await actingUserNamed(env, as)
      if (user !== null) checkExportAs(env.spec, spec, user, as ?? '', flag(input, 'decrypt'))
      const hidden = hiddenFields(spec, user)
      const columns = columnsOf(spec).filter((c) => hidden === undefined || !hidden.has(c))
      const output = openExportOutput(input.stdout, input.cwd, out)
      if (format === 'csv') await output.write(stringify([columns]))
      let count = 0
      const ids: string[] = []
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
          // The one `comunicar` entry below records these reads.
          { reveal: flag(input, 'decrypt'), actor: env.actor, user, logConsultation: false },
        )
        if (records.length === 0 || output.broken) break
        count += records.length
        for (const record of records) ids.push(String(record[META.id]))
        await output.write(
          format === 'csv'
            ? stringify(records.map((r: ApiRecord) => columns.map((c) => cell(r[c]))))
            : records.map((r) => `${JSON.stringify(r)}\n`).join(''),
        )
      }
      if (output.failure !== undefined) throw output.failure
      // Written once the records are out (their ids known), before the command reports success.
      await env.store.audit([
        {
          userId: env.actor,
          action: 'comunicar',
          module: spec.name,
          recordId: null,
          version: null,
          recordHash: null,
          fields: columns.filter((c) => spec.fieldsByName.has(c)),
          recipient: disclosure.recipient,
          motivo: disclosure.motivo,
          recordIds: ids,
          criteria: {
            formato: format,
            descifrado: flag(input, 'decrypt'),
            como: as ?? null,
            ...(user === null ? {} : { como_id: user.id, como_rol: user.role }),
            registros: count,
          },
        },
      ])
      if (out !== undefined) {
        await output.end()
        input.stderr.write(`${count} registros exportados de '${spec.name}' a ${out}\n`)
      }
      return 0
    })
  },
}

export const commands = [exportCommand]
