// `records audit export [--desde T] [--hasta T] [--format csv|jsonl] [--out FILE]`:
// the entries of a time range as one unbroken piece of the chain, for the data
// protection officer; its first prev_hash and last hash on stderr, and
// `records audit verify --segment FILE` checks the file offline. Listed by audit.ts.
import { openExportOutput } from '../export-output.js'
import { auditEntryFromRow } from '../../db/audit/log.js'
import { SYSTEM_TABLES } from '../../db/system-tables.js'
import { auditTimeBound } from '../../records/audit-query.js'
import { commandFailed, usageError } from '../../errors.js'
import { segmentHeader, segmentLines, type SegmentFormat } from '../audit-segment.js'
import { stringOption, type Command } from '../command.js'
import { withEnvironment } from '../environment.js'

const PAGE = 1000

function formatOf(option: string | undefined, out: string | undefined): SegmentFormat {
  const chosen = option ?? (out !== undefined && /\.jsonl?$/i.test(out) ? 'jsonl' : 'csv')
  if (chosen !== 'csv' && chosen !== 'jsonl') throw usageError(`--format admite csv o jsonl (recibido '${chosen}')`)
  return chosen
}

export const auditExport: Command = {
  name: 'audit export',
  summary: 'Exporta un tramo de la cadena de auditoría (CSV o JSON Lines) comprobable aparte',
  help: `
Uso: records audit export [--desde T] [--hasta T] [--format csv|jsonl] [--out fichero]

Escribe las entradas de auditoría de un periodo, en orden de secuencia, como un tramo seguido
de la cadena: desde la primera entrada con hora (at) en o después de --desde hasta la última en
o antes de --hasta, con todas las de en medio (así se puede comprobar el encadenado aunque dos
entradas escritas a la vez tengan las horas en otro orden). Sin --desde ni --hasta, toda la
cadena. T: milisegundos desde 1970 o AAAA-MM-DD[ HH:MM:SS] en la zona horaria del servicio (un
día sin hora: desde su comienzo, hasta su final), como el filtro de GET /auditoria.

JSON Lines: una entrada por línea, tal como la devuelve la API. CSV: cabecera con los nombres de
las columnas; listas y objetos como JSON, vacío para null. Al terminar escribe en la salida de
errores el número de entradas, el prev_hash de la primera (el hash de la entrada anterior al
tramo) y el hash de la última: records audit verify --segment fichero recalcula el tramo sin
base de datos, y ese último hash se puede comparar con la cadena o con un punto de control.
Si quien lee la salida deja de leer (records audit export | head), termina sin error.

  --desde T, --hasta T   el periodo (incluidos ambos extremos)
  --format csv|jsonl     por defecto según la extensión de --out, si no CSV
  --out fichero          por defecto la salida estándar (el fichero se crea con permisos 0600)`,
  options: {
    desde: { type: 'string' },
    hasta: { type: 'string' },
    format: { type: 'string' },
    out: { type: 'string' },
  },
  positionals: { min: 0, max: 0 },
  async run(input) {
    const out = stringOption(input, 'out')
    const format = formatOf(stringOption(input, 'format'), out)
    return withEnvironment(input, async (env) => {
      const timezone = env.spec.service.timezone
      const bound = (name: 'desde' | 'hasta'): string | undefined => {
        const raw = stringOption(input, name)
        if (raw === undefined) return undefined
        const parsed = auditTimeBound(raw, timezone, name === 'hasta')
        if (parsed === undefined)
          throw usageError(
            `--${name} espera milisegundos desde 1970 o AAAA-MM-DD[ HH:MM:SS] (zona ${timezone}), recibido '${raw}'`,
          )
        return parsed
      }
      const [from, to] = [bound('desde'), bound('hasta')]
      if (from !== undefined && to !== undefined && from > to) throw usageError('--hasta es anterior a --desde')
      const { db } = env.database
      const edge = async (direction: 'min' | 'max', at: string | undefined, op: '>=' | '<=') => {
        let query = db.selectFrom(SYSTEM_TABLES.audit)
        if (at !== undefined) query = query.where('at', op, at)
        const row = await query.select((eb) => eb.fn[direction]<number>('seq').as('seq')).executeTakeFirst()
        return row?.['seq'] === null || row?.['seq'] === undefined ? undefined : Number(row['seq'])
      }
      const [firstSeq, lastSeq] = [await edge('min', from, '>='), await edge('max', to, '<=')]

      const output = openExportOutput(input.stdout, input.cwd, out)
      if (format === 'csv') await output.write(segmentHeader())
      let count = 0
      let first: { seq: number; prev: string } | undefined
      let last: { seq: number; hash: string } | undefined
      if (firstSeq !== undefined && lastSeq !== undefined && firstSeq <= lastSeq)
        for (let after = firstSeq - 1; !output.broken;) {
          const rows = await db
            .selectFrom(SYSTEM_TABLES.audit)
            .selectAll()
            .where('seq', '>', after)
            .where('seq', '<=', lastSeq)
            .orderBy('seq')
            .limit(PAGE)
            .execute()
          if (rows.length === 0) break
          const entries = rows.map(auditEntryFromRow)
          first ??= { seq: entries[0]!.seq, prev: entries[0]!.prev_hash }
          last = { seq: entries[entries.length - 1]!.seq, hash: entries[entries.length - 1]!.hash }
          count += entries.length
          await output.write(segmentLines(entries, format))
          after = last.seq
        }
      if (output.failure !== undefined)
        throw commandFailed(`No se pudo escribir la exportación: ${String(output.failure)}`)
      await output.end()
      if (!output.broken)
        input.stderr.write(
          first === undefined || last === undefined
            ? 'Ninguna entrada de auditoría en ese periodo.\n'
            : `${count} entradas de auditoría exportadas (secuencias ${first.seq} a ${last.seq})${out === undefined ? '' : ` a ${out}`}.\n` +
                `prev_hash de la primera: ${first.prev}\n` +
                `hash de la última: ${last.seq}:${last.hash}\n`,
        )
      return 0
    })
  },
}
