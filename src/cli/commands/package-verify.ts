// `records package verify <file.zip> [--huella SHA256:...] [--json]` (D43): a court package checked
// offline, as `records retention acta` checks an acta: no database, no DATA_DIR, no service key,
// only the zip. Every difference found is named. Listed by package.ts.
import { resolve } from 'node:path'
import { hashAuditEntry, type HashedAuditEntry } from '../../db/audit/log.js'
import {
  manifestShapeProblem,
  packageAuditShapeProblem,
  MAX_OWN_FILE,
  PACKAGE_FILES,
  sealShapeProblem,
  type Manifest,
  type PackageAudit,
  type SealBody,
} from '../../records/evidence-package.js'
import { actaText } from '../../records/retention-acta.js'
import { parseCheckpoint, signatureHolds, type SignedDocument } from '../audit-checkpoint.js'
import { JSON_OPTION, flag, stringOption, type Command } from '../command.js'
import { openPackageZip, type PackageZip } from '../evidence-package-zip.js'
import { messageOf, printJson, printLines } from '../output.js'
import { countOf } from '../plural.js'

/** The entry `name` parsed as JSON, with its text; a problem pushed when missing or not JSON. */
async function readJson(
  zip: PackageZip,
  name: string,
  problems: string[],
): Promise<{ value: unknown; text: string } | undefined> {
  const entry = zip.entry(name)
  if (entry === undefined) {
    problems.push(`falta ${name}`)
    return undefined
  }
  if (entry.size > MAX_OWN_FILE) {
    problems.push(`${name} ocupa ${entry.size} bytes, más de los ${MAX_OWN_FILE} de un paquete: no se lee`)
    return undefined
  }
  try {
    const text = (await zip.read(name, MAX_OWN_FILE)).toString('utf8')
    return { value: JSON.parse(text) as unknown, text }
  } catch (error) {
    problems.push(`${name} no se puede leer como JSON: ${messageOf(error)}`)
    return undefined
  }
}

interface Verdict {
  readonly problems: readonly string[]
  readonly seal?: SealBody & SignedDocument
  readonly manifest?: Manifest
  readonly entries: number
}

/** Every check of the package, each difference one line. */
async function verifyPackage(zip: PackageZip, expected: string | undefined): Promise<Verdict> {
  const problems: string[] = []
  for (const name of zip.repeated) problems.push(`${name} aparece más de una vez en el zip`)
  problems.push(...zip.layout)

  // The seal: its signature, its text as signed, its key.
  const sealRead = await readJson(zip, PACKAGE_FILES.seal, problems)
  let seal: (SealBody & SignedDocument) | undefined
  if (sealRead !== undefined) {
    const problem = sealShapeProblem(sealRead.value)
    if (problem !== undefined) problems.push(`${PACKAGE_FILES.seal}: ${problem}`)
    else {
      seal = sealRead.value as SealBody & SignedDocument
      if (!signatureHolds(seal))
        problems.push(
          `${PACKAGE_FILES.seal}: la firma no corresponde a su contenido: se modificó después de firmarse o no la firmó esa clave`,
        )
      else if (sealRead.text !== actaText(seal))
        problems.push(`${PACKAGE_FILES.seal}: no es el texto firmado (espacios, orden, escapes o una clave repetida)`)
      if (expected !== undefined && expected !== seal.huella)
        problems.push(`firmado con otra clave (${seal.huella}), no con la esperada (${expected})`)
    }
  }

  // The package's own files against the digests the seal signed.
  const own = new Set<string>(Object.values(PACKAGE_FILES))
  for (const [name, sha256] of Object.entries(seal?.contenido ?? {})) {
    own.add(name)
    if (zip.entry(name) === undefined) continue // said when read below
    const found = await zip.digest(name)
    if (found.sha256 !== sha256)
      problems.push(`${name} ha cambiado después de la firma (SHA-256 ${found.sha256}, firmado ${sha256})`)
  }

  // The originals against the manifest.
  const manifestRead = await readJson(zip, PACKAGE_FILES.manifest, problems)
  let manifest: Manifest | undefined
  if (manifestRead !== undefined) {
    const problem = manifestShapeProblem(manifestRead.value)
    if (problem !== undefined) problems.push(`${PACKAGE_FILES.manifest}: ${problem}`)
    else manifest = manifestRead.value as Manifest
  }
  if (manifest !== undefined && seal !== undefined && (manifest.modulo !== seal.modulo || manifest.id !== seal.id))
    problems.push(
      `${PACKAGE_FILES.manifest} es de ${manifest.modulo}/${manifest.id}, la firma de ${seal.modulo}/${seal.id}`,
    )
  for (const file of manifest?.ficheros ?? []) {
    for (const action of ['fichero_ingreso', 'fichero_exportacion'])
      if (!file.custodia.some((c) => c.action === action && c.sha256 === file.sha256))
        problems.push(
          `${PACKAGE_FILES.manifest}: la custodia de ${file.campo}/${file.n} no tiene una entrada '${action}' con su SHA-256`,
        )
    own.add(file.ruta)
    if (zip.entry(file.ruta) === undefined) {
      problems.push(`falta ${file.ruta} (${file.campo}/${file.n}), que el manifiesto lista`)
      continue
    }
    const entry = zip.entry(file.ruta)
    if (entry !== undefined && !entry.stored) {
      problems.push(`${file.ruta}: está comprimido; un paquete guarda los originales tal cual`)
      continue
    }
    if (entry !== undefined && entry.size !== file.size) {
      problems.push(`${file.ruta}: el zip dice ${entry.size} bytes, el manifiesto ${file.size}`)
      continue
    }
    try {
      const found = await zip.digest(file.ruta)
      if (found.sha256 !== file.sha256)
        problems.push(`${file.ruta}: su SHA-256 es ${found.sha256}, el manifiesto dice ${file.sha256}`)
      else if (found.size !== file.size)
        problems.push(`${file.ruta}: ocupa ${found.size} bytes, el manifiesto dice ${file.size}`)
    } catch (error) {
      problems.push(`${file.ruta} no se puede leer del zip: ${messageOf(error)}`)
    }
  }
  for (const name of zip.names)
    if (!own.has(name) && !name.endsWith('/')) problems.push(`sobra ${name}: no está en el manifiesto`)

  // The audit entries: each one's hash rebuilt from its content; the custody listed among them.
  const auditRead = await readJson(zip, PACKAGE_FILES.audit, problems)
  let entries = 0
  if (auditRead !== undefined) {
    const problem = packageAuditShapeProblem(auditRead.value)
    if (problem !== undefined) problems.push(`${PACKAGE_FILES.audit}: ${problem}`)
    else {
      const audit = auditRead.value as PackageAudit
      entries = audit.entradas.length
      const bySeq = new Map(audit.entradas.map((e) => [e.seq, e.hash]))
      for (const entry of audit.entradas) {
        const { hash, ...content } = entry as unknown as HashedAuditEntry & { hash: string }
        if (hashAuditEntry(content) !== hash)
          problems.push(
            `${PACKAGE_FILES.audit}: la entrada ${entry.seq} (${entry.action}) no corresponde a su hash: se modificó`,
          )
        if (seal !== undefined && entry.seq > seal.auditoria.seq)
          problems.push(
            `${PACKAGE_FILES.audit}: la entrada ${entry.seq} es posterior a la cabeza firmada (${seal.auditoria.seq})`,
          )
      }
      for (const file of manifest?.ficheros ?? [])
        for (const custody of file.custodia)
          if (bySeq.get(custody.seq) !== custody.hash)
            problems.push(
              `${PACKAGE_FILES.manifest}: la custodia de ${file.campo}/${file.n} cita la entrada ${custody.seq}, que ${PACKAGE_FILES.audit} no tiene con ese hash`,
            )
    }
  }

  // The checkpoint: the same head, signed with the same key.
  const checkpointRead = await readJson(zip, PACKAGE_FILES.checkpoint, problems)
  if (checkpointRead !== undefined)
    try {
      const checkpoint = parseCheckpoint(checkpointRead.text)
      if (!signatureHolds(checkpoint))
        problems.push(`${PACKAGE_FILES.checkpoint}: la firma no corresponde a su contenido`)
      if (seal !== undefined && checkpoint.huella !== seal.huella)
        problems.push(`${PACKAGE_FILES.checkpoint}: firmado con otra clave (${checkpoint.huella}) que el paquete`)
      if (seal !== undefined && (checkpoint.seq !== seal.auditoria.seq || checkpoint.hash !== seal.auditoria.hash))
        problems.push(`${PACKAGE_FILES.checkpoint}: su cabeza (${checkpoint.seq}) no es la que firma el paquete`)
    } catch (error) {
      problems.push(`${PACKAGE_FILES.checkpoint}: ${messageOf(error)}`)
    }

  return {
    problems,
    ...(seal === undefined ? {} : { seal }),
    ...(manifest === undefined ? {} : { manifest }),
    entries,
  }
}

export const packageVerify: Command = {
  name: 'package verify',
  summary: 'Comprueba un paquete probatorio sin base de datos: ficheros, manifiesto, auditoría y firma',
  help: `
Uso: records package verify <fichero.zip> [--huella SHA256:...] [--json]

Comprueba el paquete de records package en cualquier máquina, sin base de datos ni claves del
servicio: la firma Ed25519 de firma.json con la clave pública que lleva dentro; que manifest.json,
auditoria.json y punto-de-control.json son los que se firmaron; que cada fichero original tiene
el SHA-256 y el tamaño que dice el manifiesto, que no falta ninguno y que no sobra nada; que cada
entrada de auditoria.json conserva su hash de la cadena (D18), que las de custodia del manifiesto
están entre ellas y que cada fichero tiene su 'fichero_ingreso' y su 'fichero_exportacion' con su
SHA-256; que el zip no guarda nada fuera de su índice (entradas seguidas desde el primer byte, cada
cabecera local con el nombre de su entrada, sin carpetas ni comentario, los originales sin
comprimir); y que el punto de control firma la misma cabeza. Salida 0 si está intacto, 1
si no, con una línea por cada diferencia.

La firma prueba quién firmó solo si la huella es la de su clave: compare la que se muestra con la
que el servicio le comunicó aparte (records audit checkpoint la muestra), o désela con --huella.

  --huella SHA256:...  la huella esperada de la clave pública; otra distinta: no válido
  --json               {"ok", "problems", "huella", "modulo", "id", "version", "ficheros", "entradas", "auditoria"}`,
  options: { ...JSON_OPTION, huella: { type: 'string' } },
  positionals: { min: 1, max: 1 },
  async run(input) {
    const file = input.positionals[0] as string
    const expected = stringOption(input, 'huella')
    const zip = await openPackageZip(resolve(input.cwd, file))
    let verdict: Verdict
    try {
      verdict = await verifyPackage(zip, expected)
    } finally {
      zip.close()
    }
    const { problems, seal, manifest } = verdict
    if (flag(input, 'json'))
      printJson(input, {
        ok: problems.length === 0,
        problems,
        huella: seal?.huella ?? null,
        modulo: manifest?.modulo ?? null,
        id: manifest?.id ?? null,
        version: manifest?.registro.version ?? null,
        ficheros: manifest?.ficheros.length ?? 0,
        entradas: verdict.entries,
        auditoria: seal?.auditoria ?? null,
      })
    else if (problems.length > 0)
      printLines(input, [
        `NO VÁLIDO: ${file}: ${countOf(problems.length, 'diferencias', 'diferencia')}:`,
        ...problems.map((p) => `  ${p}`),
      ])
    else if (seal !== undefined && manifest !== undefined)
      printLines(input, [
        `Válido: paquete de ${manifest.modulo}/${manifest.id}, versión ${manifest.registro.version} (_hash ${manifest.registro._hash}), generado el ${manifest.generado} (${manifest.zona_horaria}) por ${manifest.actor} para ${manifest.destinatario}.`,
        ...manifest.ficheros.map((f) => `  ${f.ruta}: ${f.size} bytes, SHA-256 ${f.sha256}`),
        `${countOf(verdict.entries, 'entradas de auditoría', 'entrada de auditoría')}; cabeza de la cadena firmada ${seal.auditoria.seq}:${seal.auditoria.hash}.`,
        `Firmado con la clave ${seal.huella}${expected === undefined ? ': compare esta huella con la que guarda aparte.' : ', la esperada.'}`,
      ])
    return problems.length === 0 ? 0 : 1
  },
}
