// `records audit checkpoint [--out FILE] [--key FILE]`: the chain's head
// signed with an Ed25519 key, into a small JSON file to keep off the machine;
// `records audit verify --checkpoint FILE` checks it later. Listed by audit.ts.
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { formatExactTimestamp } from '../../compile/time.js'
import { readAuditHead } from '../../db/audit/head.js'
import { commandFailed } from '../../errors.js'
import { loadOrCreateKey, publicKeyFileOf, signCheckpoint } from '../audit-checkpoint.js'
import { JSON_OPTION, flag, stringOption, type Command } from '../command.js'
import { settingsOf, withEnvironment } from '../environment.js'

export const auditCheckpoint: Command = {
  name: 'audit checkpoint',
  summary: 'Firma la cabeza de la cadena de auditoría en un punto de control para guardarlo fuera',
  help: `
Uso: records audit checkpoint [--out fichero] [--key fichero] [--json]

Firma con una clave Ed25519 la cabeza actual de la cadena de auditoría (secuencia, hash, hora y
número de entradas) y escribe el punto de control, un JSON pequeño, en --out o en la salida
estándar. Guárdelo fuera de esta máquina (por ejemplo, enviado cada día al delegado de
protección de datos): records audit verify --checkpoint fichero demuestra después que la
cadena no se ha reescrito desde entonces, aunque quien la reescribiera recalculara todos los
hashes.

La clave privada está en DATA_DIR/audit-checkpoint.key (o AUDIT_CHECKPOINT_KEY_FILE, o --key);
si no existe se crea (permisos 0600) con su clave pública al lado (.pub). La huella de la clave
pública (SHA256:...) se muestra en la salida de errores: guárdela aparte, fuera de esta máquina,
y compárela con la que muestra cada verificación.

  --out fichero   dónde escribir el punto de control (no sobrescribe uno existente; crea las
                  carpetas que falten, con permisos 0700)
  --key fichero   la clave privada que firma (por defecto la de AUDIT_CHECKPOINT_KEY_FILE)
  --json          en la salida de errores, nada: solo el punto de control en la salida`,
  options: { ...JSON_OPTION, out: { type: 'string' }, key: { type: 'string' } },
  positionals: { min: 0, max: 0 },
  async run(input) {
    const keyOption = stringOption(input, 'key')
    const keyFile = keyOption === undefined ? settingsOf(input).auditCheckpointKeyFile : resolve(input.cwd, keyOption)
    const out = stringOption(input, 'out')
    return withEnvironment(input, async (env) => {
      const head = await readAuditHead(env.database.db)
      if (head === undefined) throw commandFailed('La cadena de auditoría está vacía: no hay nada que firmar')
      const key = loadOrCreateKey(keyFile)
      const checkpoint = signCheckpoint(head, formatExactTimestamp(env.clock(), env.spec.service.timezone), key)
      const text = `${JSON.stringify(checkpoint, null, 2)}\n`
      if (out === undefined) input.stdout.write(text)
      else
        try {
          // Missing folders are created, readable by this user only (a new one each: 0700).
          mkdirSync(dirname(resolve(input.cwd, out)), { recursive: true, mode: 0o700 })
          writeFileSync(resolve(input.cwd, out), text, { flag: 'wx', mode: 0o600 })
        } catch (error) {
          throw commandFailed(`No se pudo escribir ${out}: ${(error as Error).message}`)
        }
      if (!flag(input, 'json'))
        input.stderr.write(
          [
            ...(key.created ? [`Clave de firma creada en ${keyFile} (pública: ${publicKeyFileOf(keyFile)}).`] : []),
            `Punto de control ${checkpoint.seq}:${checkpoint.hash}${out === undefined ? '' : ` escrito en ${out}`}.`,
            `Huella de la clave pública: ${checkpoint.huella} (guárdela aparte para comparar).`,
            '',
          ].join('\n'),
        )
      return 0
    })
  },
}
