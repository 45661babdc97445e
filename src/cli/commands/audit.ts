// `records audit verify [--from N] [--expect-head SEQ:HASH]`: the audit chain and every
// record's hash checked (D17, D18); the chain head printed to be kept off the machine.
import { SYSTEM_TABLES } from '../../db/migrate/system-tables.js'
import { verifyIntegrity, type IntegrityProblem } from '../../db/verify-integrity.js'
import { JSON_OPTION, flag, stringOption, type Command } from '../command.js'
import { withEnvironment, type Environment } from '../environment.js'
import { printJson, printLines } from '../output.js'
import { usageError } from '../../errors.js'

interface Head {
  readonly seq: number
  readonly hash: string
}

function parseHead(text: string | undefined): Head | undefined {
  if (text === undefined) return undefined
  const match = /^(\d+):([0-9a-f]{64})$/.exec(text.trim())
  if (match === null) throw usageError(`--expect-head espera <secuencia>:<hash> (64 cifras hexadecimales), recibido '${text}'`)
  return { seq: Number(match[1]), hash: match[2] as string }
}

async function headOf(env: Environment): Promise<Head | undefined> {
  const row = await env.database.db.selectFrom(SYSTEM_TABLES.audit).select(['seq', 'hash']).orderBy('seq', 'desc').limit(1).executeTakeFirst()
  return row === undefined ? undefined : { seq: Number(row['seq']), hash: String(row['hash']) }
}

/** A recorded head must still be in the chain, unchanged: otherwise the tail was cut or rewritten. */
async function checkExpectedHead(env: Environment, expected: Head): Promise<IntegrityProblem | undefined> {
  const row = await env.database.db.selectFrom(SYSTEM_TABLES.audit).select('hash').where('seq', '=', expected.seq).executeTakeFirst()
  if (row === undefined)
    return { kind: 'audit_gap', seq: expected.seq, message: `La entrada ${expected.seq} de la cabeza registrada ya no existe: la cadena fue truncada` }
  if (String(row['hash']) !== expected.hash)
    return { kind: 'audit_hash', seq: expected.seq, message: `La entrada ${expected.seq} no tiene el hash de la cabeza registrada: la cadena fue reescrita desde ahí` }
  return undefined
}

const verify: Command = {
  name: 'audit verify',
  summary: 'Verifica la cadena de auditoría y el _hash de cada registro',
  help: `
Uso: records audit verify [--from N] [--expect-head SEQ:HASH] [--decrypt] [--json]

Recorre la cadena de auditoría (cada entrada enlaza con el hash de la anterior, D18) y comprueba
el _hash de cada registro contra sus datos y contra su última entrada (D17), y que cada valor
cifrado lo esté con una clave configurada (la auditoría no guarda valores, solo nombres de campo). Si todo cuadra
muestra la cabeza de la cadena (última secuencia y su hash): guárdela fuera de esta máquina.
La cadena no tiene ancla externa: quien pueda escribir la base de datos puede truncar el final;
--expect-head con una cabeza guardada antes lo detecta.

  --from N                 empieza en la entrada N (los registros cuyas entradas son anteriores
                           no se comparan con la auditoría, solo con su _hash)
  --expect-head SEQ:HASH   comprueba que la entrada SEQ sigue existiendo con ese hash
  --decrypt                descifra cada valor cifrado guardado: prueba que todos se leen con las
                           claves configuradas y nombra los que no (tras una rotación, antes de
                           quitar una clave)
  --json                   {"ok", "entries", "records", "head": {seq, hash}|null, "problems": [...]}

Salida: 0 si es íntegra; 1 con la primera entrada o registro alterado.`,
  options: { ...JSON_OPTION, from: { type: 'string' }, 'expect-head': { type: 'string' }, decrypt: { type: 'boolean' } },
  positionals: { min: 0, max: 0 },
  async run(input) {
    const fromText = stringOption(input, 'from') ?? '1'
    if (!/^\d+$/.test(fromText) || Number(fromText) < 1) throw usageError(`--from espera un número de secuencia >= 1, recibido '${fromText}'`)
    const expected = parseHead(stringOption(input, 'expect-head'))
    return withEnvironment(input, async (env) => {
      const report = await verifyIntegrity(env.database, env.spec, env.codec, Number(fromText),
        { keyIds: new Set(env.keyring.keys.keys()), decrypt: flag(input, 'decrypt') })
      const headProblem = expected === undefined ? undefined : await checkExpectedHead(env, expected)
      const problems = headProblem === undefined ? report.problems : [headProblem, ...report.problems]
      const head = await headOf(env)
      if (flag(input, 'json')) printJson(input, { ok: problems.length === 0, entries: report.entries, records: report.records, head: head ?? null, problems })
      else if (problems.length === 0)
        printLines(input, [`Íntegra: ${report.entries} entradas de auditoría y ${report.records} registros comprobados.`,
          head === undefined ? 'La cadena está vacía.' : `Cabeza de la cadena: ${head.seq}:${head.hash}`])
      else {
        const [first] = problems
        printLines(input, [`ALTERADA: ${first?.message ?? ''}`, ...(problems.length > 1 ? [`(${problems.length - 1} ${problems.length === 2 ? 'problema más' : 'problemas más'}; --json los lista todos)`] : [])])
      }
      return problems.length === 0 ? 0 : 1
    })
  },
}

export const commands = [verify]
