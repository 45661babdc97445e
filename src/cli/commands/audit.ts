// `records audit verify [--from N] [--expect-head SEQ:HASH] [--checkpoint FILE] [--segment FILE]`:
// the audit chain and every record's hash checked (D17, D18), against a signed checkpoint,
// or an exported segment checked offline; `records audit export` and
// `records audit checkpoint` are in audit-export.ts and audit-checkpoint.ts.
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { SYSTEM_TABLES } from '../../db/system-tables.js'
import { pendingAuditEntries, sealAudit } from '../../db/audit/log.js'
import { verifyIntegrity, type IntegrityProblem } from '../../db/operations/verify-integrity.js'
import { verifySegment } from '../audit-segment.js'
import { auditCheckpoint } from './audit-checkpoint.js'
import { auditExport } from './audit-export.js'
import {
  fingerprintOf,
  parseCheckpoint,
  publicKeyFileOf,
  signatureHolds,
  type Checkpoint,
} from '../audit-checkpoint.js'
import { JSON_OPTION, flag, stringOption, type Command, type CommandInput } from '../command.js'
import { settingsOf, withEnvironment, type Environment } from '../environment.js'
import { printJson, printLines } from '../output.js'
import { commandFailed, usageError } from '../../errors.js'
import { createPublicKey } from 'node:crypto'
import { countOf } from '../plural.js'

interface Head {
  readonly seq: number
  readonly hash: string
}

function parseHead(text: string | undefined): Head | undefined {
  if (text === undefined) return undefined
  const match = /^(\d+):([0-9a-f]{64})$/.exec(text.trim())
  if (match === null)
    throw usageError(`--expect-head espera <secuencia>:<hash> (64 cifras hexadecimales), recibido '${text}'`)
  return { seq: Number(match[1]), hash: match[2] as string }
}

async function headOf(env: Environment): Promise<Head | undefined> {
  const row = await env.database.db
    .selectFrom(SYSTEM_TABLES.audit)
    .select(['seq', 'hash'])
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst()
  return row === undefined ? undefined : { seq: Number(row['seq']), hash: String(row['hash']) }
}

/** A recorded head must still be in the chain, unchanged: otherwise the tail was cut or rewritten. */
async function checkExpectedHead(env: Environment, expected: Head): Promise<IntegrityProblem | undefined> {
  const row = await env.database.db
    .selectFrom(SYSTEM_TABLES.audit)
    .select('hash')
    .where('seq', '=', expected.seq)
    .executeTakeFirst()
  if (row === undefined)
    return {
      kind: 'audit_gap',
      seq: expected.seq,
      message: `La entrada ${expected.seq} de la cabeza registrada ya no existe: la cadena fue truncada`,
    }
  if (String(row['hash']) !== expected.hash)
    return {
      kind: 'audit_hash',
      seq: expected.seq,
      message: `La entrada ${expected.seq} no tiene el hash de la cabeza registrada: la cadena fue reescrita desde ahí`,
    }
  return undefined
}

/** What a signed checkpoint proves against the database; problems, if any. */
async function checkCheckpoint(env: Environment, checkpoint: Checkpoint): Promise<IntegrityProblem[]> {
  if (!signatureHolds(checkpoint))
    return [
      {
        kind: 'checkpoint_signature',
        seq: checkpoint.seq,
        message: 'La firma del punto de control no es válida: el fichero fue modificado o no lo firmó su clave pública',
      },
    ]
  const head = await checkExpectedHead(env, checkpoint)
  if (head !== undefined) return [head]
  const row = await env.database.db
    .selectFrom(SYSTEM_TABLES.audit)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('seq', '<=', checkpoint.seq)
    .executeTakeFirst()
  const count = Number(row?.['n'] ?? 0)
  return count === checkpoint.entradas
    ? []
    : [
        {
          kind: 'audit_gap',
          seq: checkpoint.seq,
          message: `Hasta la entrada ${checkpoint.seq} hay ${count} entradas y el punto de control firmó ${checkpoint.entradas}`,
        },
      ]
}

/** The local public key's fingerprint, when DATA_DIR (or the setting) holds one. */
function localFingerprint(input: CommandInput): string | undefined {
  try {
    const pem = readFileSync(publicKeyFileOf(settingsOf(input).auditCheckpointKeyFile), 'utf8')
    return fingerprintOf(createPublicKey(pem).export({ type: 'spki', format: 'der' }))
  } catch {
    return undefined
  }
}

/** D41: records of a copy taken before their erasure, whose data keys are gone: unreadable on purpose. */
const destroyedKeyLines = (destroyed: readonly { module: string; recordId: string }[]): string[] =>
  destroyed.length === 0
    ? []
    : [
        `${countOf(destroyed.length, 'registros')} con la clave de datos destruida (suprimidos después de esta copia; sus valores cifrados ya no se leen): ` +
          destroyed
            .slice(0, 10)
            .map((d) => `${d.module}/${d.recordId}`)
            .join(', ') +
          (destroyed.length > 10 ? '…' : ''),
      ]

/** `--segment FILE`: an exported piece of the chain checked on its own, without a database. */
function verifySegmentFile(input: CommandInput, file: string): number {
  let text: string
  try {
    text = readFileSync(resolve(input.cwd, file), 'utf8')
  } catch (error) {
    throw commandFailed(`No se puede leer ${file}: ${(error as Error).message}`)
  }
  const report = verifySegment(text)
  if (flag(input, 'json')) printJson(input, { ok: report.problems.length === 0, ...report })
  else if (report.problems.length === 0)
    printLines(input, [
      `Segmento íntegro: ${countOf(report.entries, 'entradas')}, de la ${report.first?.seq} a la ${report.last?.seq}.`,
      `Enlaza con el hash anterior (prev_hash de la entrada ${report.first?.seq}): ${report.first?.prevHash}`,
      `Termina en ${report.last?.seq}:${report.last?.hash}`,
      'Compare ese final con una cabeza guardada o con un punto de control (records audit verify --checkpoint).',
    ])
  else
    printLines(input, [
      `ALTERADO: ${report.problems[0]?.message ?? ''}`,
      ...(report.problems.length > 1
        ? [`(${countOf(report.problems.length - 1, 'problemas')} más; --json los lista todos)`]
        : []),
    ])
  return report.problems.length === 0 ? 0 : 1
}

const verify: Command = {
  name: 'audit verify',
  summary: 'Verifica la cadena de auditoría y el _hash de cada registro',
  help: `
Uso: records audit verify [--from N] [--expect-head SEQ:HASH] [--checkpoint FICHERO] [--decrypt] [--json]
       records audit verify --segment FICHERO [--json]

Recorre la cadena de auditoría (cada entrada enlaza con el hash de la anterior, D18) y comprueba
el _hash de cada registro contra sus datos y contra su última entrada (D17), y que cada valor
cifrado lo esté con una clave configurada (la auditoría no guarda valores, solo nombres de campo). Si todo cuadra
muestra la cabeza de la cadena (última secuencia y su hash): guárdela fuera de esta máquina.
La cadena no tiene ancla externa: quien pueda escribir la base de datos puede truncar el final;
--expect-head con una cabeza guardada antes lo detecta.

  --from N                 empieza en la entrada N (los registros cuyas entradas son anteriores
                           no se comparan con la auditoría, solo con su _hash)
  --expect-head SEQ:HASH   comprueba que la entrada SEQ sigue existiendo con ese hash
  --checkpoint FICHERO     un punto de control de records audit checkpoint: comprueba su firma,
                           que la entrada de su secuencia conserva su hash y que hasta ella hay
                           las mismas entradas; la cadena reescrita desde entonces no pasa.
                           Compare la huella de la clave que muestra con la que guarda aparte
  --segment FICHERO        comprueba sin base de datos un fichero de records audit export
                           (CSV o JSON Lines): secuencias seguidas, cada entrada enlazada con la
                           anterior y cada hash recalculado; muestra su primer prev_hash y su
                           último hash
  --decrypt                descifra cada valor cifrado guardado: prueba que todos se leen con las
                           claves configuradas y nombra los que no (tras una rotación, antes de
                           quitar una clave)
  --json                   {"ok", "entries", "records", "pending", "head": {seq, hash}|null, "problems": [...],
                           "destroyedKeys": [{module, recordId}]: registros con la clave de datos
                           destruida (suprimidos después de esta copia, D41)}

En PostgreSQL las escrituras de registros dejan su entrada pendiente y la sellan en la cadena
al confirmar (D38); las que una caída dejó pendientes se cuentan ("pending"), se sellan y se
comprueban con las demás.

Salida: 0 si es íntegra; 1 con la primera entrada o registro alterado.`,
  options: {
    ...JSON_OPTION,
    from: { type: 'string' },
    'expect-head': { type: 'string' },
    checkpoint: { type: 'string' },
    segment: { type: 'string' },
    decrypt: { type: 'boolean' },
  },
  positionals: { min: 0, max: 0 },
  async run(input) {
    const fromText = stringOption(input, 'from') ?? '1'
    if (!/^\d+$/.test(fromText) || Number(fromText) < 1)
      throw usageError(`--from espera un número de secuencia >= 1, recibido '${fromText}'`)
    const expected = parseHead(stringOption(input, 'expect-head'))
    const segment = stringOption(input, 'segment')
    if (segment !== undefined) return verifySegmentFile(input, segment)
    const checkpointFile = stringOption(input, 'checkpoint')
    let checkpoint: Checkpoint | undefined
    if (checkpointFile !== undefined) {
      let text: string
      try {
        text = readFileSync(resolve(input.cwd, checkpointFile), 'utf8')
      } catch (error) {
        throw commandFailed(`No se puede leer ${checkpointFile}: ${(error as Error).message}`)
      }
      checkpoint = parseCheckpoint(text)
    }
    return withEnvironment(
      input,
      async (env) => {
        // Entries of committed writes not chained yet (D38: a crash between a commit and its
        // seal): counted, then sealed as any start would, so the records they record verify.
        const pending = await pendingAuditEntries(env.database)
        if (pending > 0) await sealAudit(env.database, env.changes)
        const report = await verifyIntegrity(env.database, env.spec, env.codec, Number(fromText), {
          keyIds: new Set(env.keyring.keys.keys()),
          decrypt: flag(input, 'decrypt'),
        })
        const headProblem = expected === undefined ? undefined : await checkExpectedHead(env, expected)
        const anchored = checkpoint === undefined ? [] : await checkCheckpoint(env, checkpoint)
        const problems = [...anchored, ...(headProblem === undefined ? [] : [headProblem]), ...report.problems]
        const head = await headOf(env)
        const local = checkpoint === undefined ? undefined : localFingerprint(input)
        const checkpointLines =
          checkpoint === undefined
            ? []
            : [
                `Punto de control ${checkpoint.seq}:${checkpoint.hash} (${checkpoint.firmado}), firmado con la clave ${checkpoint.huella}: compare esta huella con la que guarda aparte.`,
                ...(local !== undefined && local !== checkpoint.huella
                  ? [`Aviso: la clave de esta máquina es otra (${local}).`]
                  : []),
              ]
        if (flag(input, 'json'))
          printJson(input, {
            ok: problems.length === 0,
            entries: report.entries,
            records: report.records,
            pending,
            head: head ?? null,
            ...(checkpoint === undefined
              ? {}
              : { checkpoint: { seq: checkpoint.seq, hash: checkpoint.hash, huella: checkpoint.huella } }),
            problems,
            destroyedKeys: report.destroyedKeys,
          })
        else if (problems.length === 0)
          printLines(input, [
            `Íntegra: ${report.entries} entradas de auditoría y ${report.records} registros comprobados.`,
            head === undefined ? 'La cadena está vacía.' : `Cabeza de la cadena: ${head.seq}:${head.hash}`,
            ...pendingLines(pending),
            ...checkpointLines,
            ...destroyedKeyLines(report.destroyedKeys),
          ])
        else {
          const [first] = problems
          printLines(input, [
            `ALTERADA: ${first?.message ?? ''}`,
            ...(problems.length > 1
              ? [
                  `(${problems.length - 1} ${problems.length === 2 ? 'problema más' : 'problemas más'}; --json los lista todos)`,
                ]
              : []),
            ...pendingLines(pending),
            ...checkpointLines,
          ])
        }
        return problems.length === 0 ? 0 : 1
      },
      { sealAudit: false },
    )
  },
}

/** What verify says of the entries it found pending (D38). */
const pendingLines = (pending: number): string[] =>
  pending === 0
    ? []
    : [
        `${pending} ${pending === 1 ? 'entrada pendiente' : 'entradas pendientes'} de sellar (escrituras confirmadas sin su sitio en la cadena, p. ej. tras una caída): selladas ahora y comprobadas con las demás.`,
      ]

export const commands = [verify, auditExport, auditCheckpoint]
