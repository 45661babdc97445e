// `records keys generate|rotate|status|retire`: encryption key material and its rotation while the
// service runs (D14).
import { randomBytes } from 'node:crypto'
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { keyIdOf } from '../../db/crypto.js'
import { liveInstances } from '../../db/keys/instance-heartbeat.js'
import { activeKeyOf, signalKeys } from '../../db/keys/registry.js'
import { rotateEncryption } from '../../db/keys/rotation.js'
import { keyUsage } from '../../db/keys/usage.js'
import { JSON_OPTION, flag, stringOption, type Command } from '../command.js'
import { commandFailed, usageError } from '../../errors.js'
import { settingsOf, withEnvironment, type Environment } from '../environment.js'
import { describeInstance, keyVerdict, verdictLines, waitForInstances, type KeyVerdict } from '../key-report.js'
import { printJson, printLines } from '../output.js'
import { keysRetire } from './keys-retire.js'

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
    como primera línea del fichero y deja las anteriores debajo para descifrar; después,
    records keys rotate. Hasta entonces todas las instancias siguen cifrando con la clave
    activa de la base de datos; las que están en marcha releen el fichero al rotar.

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
    if (input.env['RECORDS_ENCRYPTION_KEY'])
      throw commandFailed(
        'RECORDS_ENCRYPTION_KEY está configurada: cambie la clave allí (la anterior en RECORDS_ENCRYPTION_OLD_KEYS); --install solo gestiona DATA_DIR/encryption.key',
      )
    const file = join(settingsOf(input).dataDir, 'encryption.key')
    const previous = existsSync(file) ? readFileSync(file, 'utf8').trim() : ''
    writeFileSync(file, `${key}\n${previous === '' ? '' : `${previous}\n`}`, { mode: 0o600 })
    chmodSync(file, 0o600) // the mode above applies only to a new file
    if (flag(input, 'json')) printJson(input, { keyId, installed: file })
    else
      printLines(input, [
        `Clave ${keyId} instalada en ${file} como la próxima activa; las anteriores quedan para descifrar. Ejecute records keys rotate.`,
      ])
    return 0
  },
}

/** --wait SECONDS: how long to wait for running instances to report (heartbeats). */
function waitMsOf(input: Parameters<Command['run']>[0]): number {
  const text = stringOption(input, 'wait') ?? '60'
  if (!/^\d+$/.test(text)) throw usageError(`--wait espera un número de segundos, recibido '${text}'`)
  return Number(text) * 1000
}

async function verdictOf(env: Environment): Promise<KeyVerdict> {
  const active = (await activeKeyOf(env.database)) ?? env.keyring.activeId
  const configured = [env.keys.targetId, ...[...env.keyring.keys.keys()].filter((k) => k !== env.keys.targetId)]
  const usage = await keyUsage(env.database, env.spec, env.recordKeys)
  return keyVerdict(active, configured, usage, await liveInstances(env.database))
}

const rotate: Command = {
  name: 'keys rotate',
  summary: 'Pasa todas las instancias a la clave nueva y re-cifra los valores cifrados con las anteriores',
  help: `
Uso: records keys rotate [--wait SEGUNDOS] [--json]

La clave nueva es la primera configurada aquí (RECORDS_ENCRYPTION_KEY o la primera línea de
DATA_DIR/encryption.key); las anteriores deben seguir configuradas para descifrar. Sin parar el
servicio, con una o varias instancias:
  1. pide a las instancias en marcha que relean sus claves y espera a que todas tengan la nueva
     (cada instancia lo anota en _instances en cada latido); si alguna no la tiene, no cambia nada
     y dice cuál;
  2. hace activa la clave nueva en la base de datos: desde ese momento toda escritura, en
     cualquier instancia, cifra con ella; las búsquedas por índice ciego y la unicidad de los
     campos cifrados usan la nueva y las anteriores mientras dure;
  3. re-cifra por lotes (una transacción cada uno, registros eliminados incluidos) cada valor
     cifrado con otra clave, con su índice ciego y su _hash, y lo anota ('recifrar'); después,
     las versiones guardadas de los registros (historial); si se interrumpe, se vuelve a
     ejecutar y sigue;
  4. espera a que cada instancia confirme que cifra con la nueva y dice si las claves anteriores
     pueden quitarse (records keys status lo vuelve a comprobar).

  --wait SEGUNDOS  espera máxima por las instancias en los pasos 1 y 4 (60)
  --json           {"activeKeyId", "rewritten", "versions", "oldKeys", "usage", "instances", "oldKeysRemovable", "reasons"}

Salida: 0 si la rotación terminó; 1 si alguna instancia no tiene la clave nueva (nada cambió).`,
  options: { ...JSON_OPTION, wait: { type: 'string' } },
  positionals: { min: 0, max: 0 },
  async run(input) {
    const waitMs = waitMsOf(input)
    return withEnvironment(input, async (env) => {
      const target = env.keys.targetId
      await signalKeys(env.database, env.changes)
      const lacking = await waitForInstances(env.database, (i) => i.keyIds.includes(target), waitMs)
      if (lacking.length > 0) {
        const lines = [
          `No se ha cambiado nada: ${lacking.length === 1 ? 'esta instancia en marcha no tiene' : 'estas instancias en marcha no tienen'} la clave nueva ${target}:`,
          ...lacking.map((i) => `  - ${describeInstance(i)}: claves ${i.keyIds.join(', ')}`),
          'Añádala a su configuración (el fichero encryption.key se relee solo; con RECORDS_ENCRYPTION_KEY, póngala en ' +
            'RECORDS_ENCRYPTION_OLD_KEYS y reinicie esa instancia) y vuelva a ejecutar records keys rotate.',
        ]
        if (flag(input, 'json')) printJson(input, { activeKeyId: target, rewritten: 0, lacking })
        else printLines(input, lines)
        return 1
      }
      const tty = input.stderr.isTTY === true
      const { rewritten, versions } = await rotateEncryption({
        database: env.database,
        spec: env.spec,
        codec: env.codec,
        factors: env.factors,
        files: env.files,
        recordKeys: env.recordKeys,
        changes: env.changes,
        activeKeyId: target,
        timezone: env.spec.service.timezone,
        clock: env.clock,
        onBatch: ({ module, rewritten: n }) =>
          void (tty && input.stderr.write(`\rRe-cifrando ${module}: ${n} registros`)),
      })
      if (tty && rewritten > 0) input.stderr.write('\n')
      await waitForInstances(env.database, (i) => i.activeKeyId === target, waitMs)
      const verdict = await verdictOf(env)
      if (flag(input, 'json')) printJson(input, { rewritten, versions, ...verdict })
      else
        printLines(input, [
          `Rotación completa: ${rewritten} registros re-cifrados con la clave ${target}, que es la activa (y ${versions} versiones guardadas de registros).`,
          ...verdictLines(verdict),
        ])
      return 0
    })
  },
}

const status: Command = {
  name: 'keys status',
  summary: 'Muestra la clave activa, qué clave cifra cada valor y cada instancia, y si las anteriores pueden quitarse',
  help: `
Uso: records keys status [--json]

Muestra la clave activa (con la que escribe toda instancia), cuántos valores guardados hay
cifrados con cada clave (en los registros y en sus versiones guardadas), las instancias en
marcha (las que anotaron un latido en _instances hace menos de tres intervalos) con sus claves, y si las claves anteriores pueden quitarse de la
configuración: solo cuando ningún valor ni ninguna instancia en marcha las usa.

  --json   {"activeKeyId", "oldKeys", "usage", "instances", "oldKeysRemovable", "reasons"}`,
  options: JSON_OPTION,
  positionals: { min: 0, max: 0 },
  async run(input) {
    return withEnvironment(
      input,
      async (env) => {
        const verdict = await verdictOf(env)
        if (flag(input, 'json')) printJson(input, verdict)
        else
          printLines(input, [
            `Clave activa: ${verdict.activeKeyId}`,
            `Valores cifrados por clave: ${[...Object.entries(verdict.usage)].map(([k, n]) => `${k}: ${n}`).join(', ') || 'ninguno'}`,
            `Instancias en marcha: ${verdict.instances.length}`,
            ...verdict.instances.map(
              (i) => `  - ${describeInstance(i)}: claves ${i.keyIds.join(', ')}; cifra con ${i.activeKeyId}`,
            ),
            ...verdictLines(verdict),
          ])
        return verdict.oldKeysRemovable ? 0 : 1
      },
      { migrate: false },
    )
  },
}

export const commands = [generate, rotate, status, keysRetire]
