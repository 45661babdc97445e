// `records keys generate|rotate`: encryption key material and its rotation (issue #3, D14).
import { randomBytes } from 'node:crypto'
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { keyIdOf } from '../../db/crypto.js'
import { rotateEncryption } from '../../db/key-rotation.js'
import { CliError, JSON_OPTION, flag, type Command } from '../command.js'
import { settingsOf, withEnvironment } from '../environment.js'
import { printJson, printLines } from '../output.js'

const generate: Command = {
  name: 'keys generate',
  summary: 'Genera una clave de cifrado nueva (32 bytes en base64)',
  help: `
Uso: records keys generate [--install] [--json]

Escribe en la salida una clave AES-256 nueva en base64 y su id (el que aparece en los valores
cifrados). Para usarla:
  - con RECORDS_ENCRYPTION_KEY: ponga la nueva en RECORDS_ENCRYPTION_KEY, la anterior en
    RECORDS_ENCRYPTION_OLD_KEYS, y ejecute records keys rotate;
  - con el fichero DATA_DIR/encryption.key (sin RECORDS_ENCRYPTION_KEY): --install la pone
    como primera línea del fichero (la activa) y deja las anteriores debajo para descifrar;
    después, records keys rotate.

  --install  añade la clave a DATA_DIR/encryption.key como clave activa (no la muestra)
  --json     {"keyId", "key"} ({"keyId", "installed"} con --install)`,
  options: { ...JSON_OPTION, install: { type: 'boolean' } },
  positionals: { min: 0, max: 0 },
  async run(input) {
    const key = randomBytes(32).toString('base64')
    const keyId = keyIdOf(Buffer.from(key, 'base64'))
    if (!flag(input, 'install')) {
      if (flag(input, 'json')) printJson(input, { keyId, key })
      else printLines(input, [key, `(id de la clave: ${keyId})`])
      return 0
    }
    if (input.env['RECORDS_ENCRYPTION_KEY']) throw new CliError('RECORDS_ENCRYPTION_KEY está configurada: cambie la clave allí (la anterior en RECORDS_ENCRYPTION_OLD_KEYS); --install solo gestiona DATA_DIR/encryption.key')
    const file = join(settingsOf(input).dataDir, 'encryption.key')
    const previous = existsSync(file) ? readFileSync(file, 'utf8').trim() : ''
    writeFileSync(file, `${key}\n${previous === '' ? '' : `${previous}\n`}`, { mode: 0o600 })
    chmodSync(file, 0o600) // the mode above applies only to a new file (issue #13 item 5)
    if (flag(input, 'json')) printJson(input, { keyId, installed: file })
    else printLines(input, [`Clave ${keyId} instalada como activa en ${file}; las anteriores quedan para descifrar. Ejecute records keys rotate.`])
    return 0
  },
}

const rotate: Command = {
  name: 'keys rotate',
  summary: 'Re-cifra con la clave activa todos los valores cifrados con claves anteriores',
  help: `
Uso: records keys rotate [--json]

Re-cifra con la clave activa (RECORDS_ENCRYPTION_KEY o la primera línea de
DATA_DIR/encryption.key) cada valor cifrado con una clave anterior (que debe seguir configurada
para descifrar: RECORDS_ENCRYPTION_OLD_KEYS o las líneas siguientes del fichero), registros
eliminados incluidos, con su índice ciego y su _hash, y lo anota en la auditoría ('recifrar').
Trabaja por lotes de una transacción cada uno: si se interrumpe, se vuelve a ejecutar y sigue.
Al terminar, las claves anteriores dejan de ser necesarias y pueden quitarse de la configuración.

  --json   {"activeKeyId", "rewritten"}`,
  options: JSON_OPTION,
  positionals: { min: 0, max: 0 },
  async run(input) {
    return withEnvironment(input, async (env) => {
      const tty = input.stderr.isTTY === true
      const { rewritten } = await rotateEncryption({
        database: env.database, spec: env.spec, codec: env.codec, activeKeyId: env.keyring.activeId,
        timezone: env.spec.service.timezone, clock: env.clock,
        onBatch: ({ module, rewritten: n }) => void (tty && input.stderr.write(`\rRe-cifrando ${module}: ${n} registros`)),
      })
      if (tty && rewritten > 0) input.stderr.write('\n')
      if (flag(input, 'json')) printJson(input, { activeKeyId: env.keyring.activeId, rewritten })
      else printLines(input, [`Rotación completa: ${rewritten} registros re-cifrados con la clave ${env.keyring.activeId}. Las claves anteriores ya no se necesitan.`])
      return 0
    })
  },
}

export const commands = [generate, rotate]
