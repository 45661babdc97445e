// `records package <module> <id> --out FILE.zip --destinatario ... --motivo ...` (D43): a record's
// evidence files for a court, in one zip: the originals as uploaded, the manifest, the record's
// audit entries and a seal signed with the audit checkpoint key. Packaging is an export in each
// file's chain of custody. `records package verify` (package-verify.ts) checks one offline.
import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { basename, resolve } from 'node:path'
import { formatExactTimestamp } from '../../compile/time.js'
import type { PackagedFile } from '../../db/files/types.js'
import { readAuditHead } from '../../db/audit/head.js'
import { commandFailed, usageError } from '../../errors.js'
import {
  custodyIn,
  MANIFEST_KIND,
  MAX_OWN_FILE,
  PACKAGE_AUDIT_KIND,
  PACKAGE_FILES,
  PACKAGE_KIND,
  packagedPath,
  type Manifest,
  type PackageAudit,
  type SealBody,
} from '../../records/evidence-package.js'
import { actaText } from '../../records/retention-acta.js'
import { loadKey, signCheckpoint, signDocument } from '../audit-checkpoint.js'
import { JSON_OPTION, flag, stringOption, type Command } from '../command.js'
import { disclosureOf } from '../disclosure.js'
import { moduleNamed, settingsOf, withEnvironment } from '../environment.js'
import { writePackageZip, type ZipText } from '../evidence-package-zip.js'
import { printJson, printLines } from '../output.js'
import { countOf } from '../plural.js'
import { packageVerify } from './package-verify.js'

const sha256Of = (text: string): string => createHash('sha256').update(text).digest('hex')

/**
 * Each file against its `fichero_ingreso` entry of the hash-chained audit trail, not only its row
 * (which a database hand can edit): one with no such entry, or another digest or size, is refused.
 */
function refuseUnlikeUpload(files: readonly PackagedFile[]): void {
  for (const file of files) {
    if (file.upload === null)
      throw commandFailed(
        `El fichero ${file.field}/${file.n} no tiene entrada 'fichero_ingreso' en la auditoría: ` +
          'no se puede probar qué se subió y no se empaqueta. Vea records audit verify',
      )
    if (file.upload.sha256 !== file.sha256 || file.upload.size !== file.size)
      throw commandFailed(
        `El fichero ${file.field}/${file.n} no es el de su subida según la auditoría ` +
          `(la tabla de ficheros dice SHA-256 ${file.sha256}, ${file.size} bytes; la entrada 'fichero_ingreso', ` +
          `${String(file.upload.sha256)}, ${String(file.upload.size)}): no se empaqueta. Vea records files verify`,
      )
  }
}

const pack: Command = {
  name: 'package',
  summary: 'Prepara el paquete probatorio de un registro para un juzgado: sus ficheros, manifiesto, auditoría y firma',
  help: `
Uso: records package <módulo> <id> --out fichero.zip --destinatario quién --motivo por-qué
                     [--key fichero] [--json]

Escribe en un zip los ficheros de prueba del registro (campos de tipo file, D43) tal como se
subieron, ya descifrados, cada uno comprobado contra el SHA-256 de su subida mientras se copia; un
manifest.json con el módulo, el id, la versión del registro y su _hash y, por fichero, su campo,
número, SHA-256, tamaño, tipo, nombre y sus entradas de custodia; auditoria.json con todas las
entradas de auditoría del registro; punto-de-control.json, la cabeza de la cadena firmada como
la de records audit checkpoint; y firma.json, que firma con esa misma clave Ed25519 el SHA-256 de
los tres anteriores. records package verify lo comprueba sin base de datos.

Entregar el paquete es una comunicación de datos (D29): exige --destinatario y --motivo. Antes de
cerrar el zip, cada fichero empaquetado deja en la auditoría una entrada 'fichero_exportacion' de
su cadena de custodia (con su SHA-256, el destinatario y el motivo), a nombre de quien ejecuta el
comando; el paquete ya la incluye. Un registro bloqueado (D41) se empaqueta: su uso ante un
juzgado es lícito; el manifiesto lo dice. No se empaqueta un registro que no existe, suprimido,
eliminado o sin ficheros, ni un fichero que no coincide con su subida; nunca se sobrescribe --out.

  --out fichero.zip    dónde escribir el paquete (no debe existir)
  --destinatario quién a quién se entrega (p. ej. 'Juzgado de Instrucción n.º 2')
  --motivo por-qué     la justificación (p. ej. 'Diligencias previas 123/2026')
  --key fichero        la clave privada que firma (por defecto la de AUDIT_CHECKPOINT_KEY_FILE);
                       debe existir: no se crea (la crea records audit checkpoint)
  --json               {"out", "modulo", "id", "version", "ficheros", "entradas", "auditoria", "huella"}`,
  options: {
    ...JSON_OPTION,
    out: { type: 'string' },
    destinatario: { type: 'string' },
    motivo: { type: 'string' },
    key: { type: 'string' },
  },
  positionals: { min: 2, max: 2 },
  async run(input) {
    const [module, id] = input.positionals as [string, string]
    const out = stringOption(input, 'out')
    if (out === undefined || out.trim() === '') throw usageError('Indique dónde escribir el paquete: --out fichero.zip')
    const disclosure = disclosureOf(stringOption(input, 'destinatario'), stringOption(input, 'motivo'))
    const target = resolve(input.cwd, out)
    if (existsSync(target)) throw commandFailed(`${out} ya existe: no se sobrescribe. Elija otro --out`)
    const keyOption = stringOption(input, 'key')
    const keyFile = keyOption === undefined ? settingsOf(input).auditCheckpointKeyFile : resolve(input.cwd, keyOption)
    return withEnvironment(input, async (env) => {
      const spec = moduleNamed(env.spec, module)
      if (!spec.fields.some((f) => f.uploaded === true))
        throw commandFailed(`El módulo '${module}' no tiene campos de tipo file: no hay ficheros que empaquetar`)
      const source = await env.files.packageSource(spec, id)
      if (!source.found)
        throw commandFailed(
          source.erasedAt === null
            ? `No existe el registro '${id}' en ${module}`
            : `El registro '${id}' de ${module} se suprimió el ${source.erasedAt} (D41): sus ficheros ya no existen`,
        )
      if (source.deleted)
        throw commandFailed(`El registro '${id}' de ${module} está eliminado: sus ficheros no se empaquetan`)
      if (source.files.length === 0)
        throw commandFailed(`El registro '${id}' de ${module} no tiene ficheros de prueba: no hay nada que empaquetar`)
      refuseUnlikeUpload(source.files)
      const key = loadKey(keyFile)
      const now = env.clock()
      const timezone = env.spec.service.timezone
      const firmado = formatExactTimestamp(now, timezone)
      const originals = source.files.map((file) => ({
        ...file,
        path: packagedPath(file.field, file.n, file.name),
        label: `${file.field}/${file.n}`,
      }))
      let summary = { entradas: 0, head: { seq: 0, hash: '' }, huella: '' }
      // Once every original is in the zip with its upload's digest: the export entries, then
      // the audit entries (they among them), the chain's head and the seal.
      const finish = async (): Promise<ZipText[]> => {
        await env.files.recordExport(spec, id, source.files, {
          actor: env.actor,
          ...disclosure,
          version: source.version,
          package: basename(target),
        })
        const { entries, unlinked } = await env.files.recordAudit(spec, id)
        if (unlinked.length > 0)
          throw commandFailed(
            `La cadena de auditoría no se sostiene en las entradas ${unlinked.join(', ')} del registro ` +
              '(su prev_hash no es el hash de la anterior o su hash no es el de su contenido): no se firma. Vea records audit verify',
          )
        const head = await readAuditHead(env.database.db)
        if (head === undefined) throw commandFailed('La cadena de auditoría está vacía: no hay nada que firmar')
        const manifest: Manifest = {
          tipo: MANIFEST_KIND,
          version: 1,
          modulo: spec.name,
          id,
          registro: { version: source.version, _hash: source.hash, bloqueado: source.blocked },
          generado: firmado,
          zona_horaria: timezone,
          actor: env.actor,
          destinatario: disclosure.recipient,
          motivo: disclosure.motivo,
          ficheros: originals.map((f) => ({
            campo: f.field,
            n: f.n,
            sha256: f.sha256,
            size: f.size,
            type: f.type,
            name: f.name,
            ruta: f.path,
            custodia: custodyIn(entries, f.field, f.n),
          })),
        }
        const audit: PackageAudit = { tipo: PACKAGE_AUDIT_KIND, modulo: spec.name, id, entradas: entries }
        const texts = [
          { name: PACKAGE_FILES.manifest, text: actaText(manifest) },
          { name: PACKAGE_FILES.audit, text: actaText(audit) },
          { name: PACKAGE_FILES.checkpoint, text: actaText(signCheckpoint(head, firmado, key)) },
        ]
        for (const { name, text } of texts)
          if (Buffer.byteLength(text) > MAX_OWN_FILE)
            throw commandFailed(
              `${name} ocuparía ${Buffer.byteLength(text)} bytes, más de los ${MAX_OWN_FILE} que records package verify lee: no se escribe`,
            )
        const seal: SealBody = {
          tipo: PACKAGE_KIND,
          version: 1,
          modulo: spec.name,
          id,
          firmado,
          contenido: Object.fromEntries(texts.map((t) => [t.name, sha256Of(t.text)])),
          auditoria: head,
        }
        const signed = signDocument(seal, key)
        summary = { entradas: entries.length, head, huella: signed.huella }
        return [...texts, { name: PACKAGE_FILES.seal, text: actaText(signed) }]
      }
      await writePackageZip(target, originals, finish, now)
      const bytes = source.files.reduce((n, f) => n + f.size, 0)
      if (flag(input, 'json'))
        printJson(input, {
          out: target,
          modulo: spec.name,
          id,
          version: source.version,
          ficheros: source.files.length,
          entradas: summary.entradas,
          auditoria: summary.head,
          huella: summary.huella,
        })
      else
        printLines(input, [
          `Paquete de ${spec.name}/${id} (versión ${source.version}${source.blocked ? ', bloqueado' : ''}) escrito en ${out}: ` +
            `${countOf(source.files.length, 'ficheros', 'fichero')} (${bytes} bytes), ${countOf(summary.entradas, 'entradas de auditoría', 'entrada de auditoría')}.`,
          `Exportación anotada en la custodia de cada fichero; cabeza de la auditoría ${summary.head.seq}:${summary.head.hash}.`,
          `Firmado con la clave ${summary.huella}: compruébelo con records package verify ${out} --huella ${summary.huella}`,
        ])
      return 0
    })
  },
}

export const commands = [pack, packageVerify]
