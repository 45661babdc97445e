// `records retention acta <file> [--huella SHA256:...] [--json]` verifies an acta de eliminación
// (D41) offline: no database, no DATA_DIR, only the file. Listed by retention.ts.
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { commandFailed } from '../../errors.js'
import { actaShapeProblem, actaText, type ActaBody } from '../../records/retention-acta.js'
import { signatureHolds, type SignedDocument } from '../audit-checkpoint.js'
import { JSON_OPTION, flag, stringOption, type Command, type CommandInput } from '../command.js'
import { messageOf, printJson, printLines } from '../output.js'
import { countOf } from '../plural.js'

/** The acta in `file`, and whether the file is byte for byte the text that was signed. */
function readActa(input: CommandInput, file: string): { document: ActaBody & SignedDocument; asWritten: boolean } {
  let text: string
  try {
    text = readFileSync(resolve(input.cwd, file), 'utf8')
  } catch (error) {
    throw commandFailed(`No se puede leer ${file}: ${messageOf(error)}`)
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw commandFailed(`${file} no es un acta de eliminación: no es JSON`)
  }
  const problem = actaShapeProblem(value)
  if (problem !== undefined) throw commandFailed(`${file}: ${problem}`)
  return { document: value as ActaBody & SignedDocument, asWritten: text === actaText(value as object) }
}

const acta: Command = {
  name: 'retention acta',
  summary: 'Verifica un acta de eliminación firmada, sin base de datos',
  help: `
Uso: records retention acta <fichero> [--huella SHA256:...] [--json]

Comprueba que el acta de eliminación de records retention run no ha cambiado desde que se firmó:
la firma Ed25519 sobre todo su contenido con la clave pública que lleva dentro, y que la huella
de esa clave es la suya. No abre la base de datos: sirve en cualquier máquina. Salida 0 si es
válida, 1 si no (un solo byte cambiado basta), diciendo por qué.

La firma prueba quién la firmó solo si la huella es la de su clave: compare la que se muestra con
la que guarda aparte (records audit checkpoint la muestra), o désela con --huella y se comprueba.

  --huella SHA256:...  la huella esperada de la clave pública; otra distinta: no válida
  --json               {"ok", "problem", "huella", "fecha", "total", "modulos", "auditoria"}`,
  options: { ...JSON_OPTION, huella: { type: 'string' } },
  positionals: { min: 1, max: 1 },
  async run(input) {
    const file = input.positionals[0] as string
    const { document, asWritten } = readActa(input, file)
    const expected = stringOption(input, 'huella')
    const problem = !signatureHolds(document)
      ? 'la firma no corresponde al contenido: el acta se ha modificado o no la firmó esa clave'
      : !asWritten
        ? 'el fichero no es el texto firmado: se cambiaron espacios, el orden, el escape o se repitió una clave'
        : expected !== undefined && expected !== document.huella
          ? `firmada con otra clave (${document.huella}), no con la esperada (${expected})`
          : undefined
    if (flag(input, 'json'))
      printJson(input, {
        ok: problem === undefined,
        problem: problem ?? null,
        huella: document.huella,
        fecha: document.fecha,
        total: document.total,
        modulos: document.modulos.map((m) => ({ modulo: m.modulo, suprimidos: m.suprimidos.length })),
        auditoria: document.auditoria,
      })
    else if (problem !== undefined) printLines(input, [`NO VÁLIDA: ${file}: ${problem}.`])
    else
      printLines(input, [
        `Válida: acta de eliminación del ${document.fecha} (${document.zona_horaria}), ${document.actor}: ${countOf(document.total, 'registros suprimidos', 'registro suprimido')}.`,
        ...document.modulos.map((m) => `  ${m.modulo}: ${m.suprimidos.length} (base: ${m.base_legal})`),
        `Cabeza de la auditoría tras la ejecución: ${document.auditoria.seq}:${document.auditoria.hash}`,
        `Firmada con la clave ${document.huella}${expected === undefined ? ': compare esta huella con la que guarda aparte.' : ', la esperada.'}`,
      ])
    return problem === undefined ? 0 : 1
  },
}

export const retentionActa = acta
