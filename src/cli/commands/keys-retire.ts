// `records keys retire <id>` (listed by keys.ts): an old key leaves the key registry and
// DATA_DIR/encryption.key once nothing needs it: no stored value, no running instance, and
// never the active key. The check is `records keys status`'s, made again inside the command.
import { randomBytes } from 'node:crypto'
import { readFileSync, renameSync, writeFileSync } from 'node:fs'
import { keyIdOf } from '../../db/crypto.js'
import { liveInstances } from '../../db/keys/instance-heartbeat.js'
import { activeKeyOf, retireKey } from '../../db/keys/registry.js'
import { keyUsage } from '../../db/keys/usage.js'
import { commandFailed } from '../../errors.js'
import { parseKeyList } from '../../app/settings.js'
import { JSON_OPTION, flag, type Command } from '../command.js'
import { withEnvironment } from '../environment.js'
import { describeInstance } from '../key-report.js'
import { printJson, printLines } from '../output.js'

/** The key file without `keyId`'s line, written under a temporary name (0600) and renamed over it. */
function removeFromKeyFile(file: string, keyId: string): boolean {
  const lines = readFileSync(file, 'utf8')
    .split(/\s*[\n,]\s*/)
    .filter((line) => line !== '')
  const kept = lines.filter((line) => keyIdOf(parseKeyList(line)[0]!) !== keyId)
  if (kept.length === lines.length) return false
  const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`
  writeFileSync(temporary, `${kept.join('\n')}\n`, { mode: 0o600, flag: 'wx' })
  renameSync(temporary, file)
  return true
}

export const keysRetire: Command = {
  name: 'keys retire',
  summary: 'Quita una clave antigua que ya no usa ningún valor guardado ni ninguna instancia',
  help: `
Uso: records keys retire <id> [--json]

Quita la clave <id> (el id de 8 caracteres que muestran records keys status y generate) del
registro de claves de la base de datos y de DATA_DIR/encryption.key, solo si nada la necesita:
no es la clave activa, ningún valor guardado (registros, eliminados incluidos, y sus versiones)
está cifrado con ella y ninguna instancia en marcha cifra con ella. Si algo la usa, no cambia
nada y dice qué (records keys rotate re-cifra esos valores). Con RECORDS_ENCRYPTION_KEY, quítela
usted de RECORDS_ENCRYPTION_OLD_KEYS en cada instancia: esta orden solo la quita del registro.

Guarde la clave junto a las copias de seguridad hechas antes de la rotación: restaurarlas la
necesita.

  --json   {"keyId", "registry", "keyFile"}

Salida: 0 si la quitó; 1 si algo la usa todavía (nada cambió).`,
  options: JSON_OPTION,
  positionals: { min: 1, max: 1 },
  async run(input) {
    const keyId = input.positionals[0] ?? ''
    return withEnvironment(
      input,
      async (env) => {
        const active = (await activeKeyOf(env.database)) ?? env.keyring.activeId
        if (keyId === active)
          throw commandFailed(
            `La clave ${keyId} es la activa: no puede retirarse (rote antes a otra con records keys rotate)`,
          )
        const used = (await keyUsage(env.database, env.spec, env.recordKeys)).get(keyId) ?? 0
        if (used > 0)
          throw commandFailed(
            `${used} ${used === 1 ? 'valor guardado sigue cifrado' : 'valores guardados siguen cifrados'} con la clave ${keyId}: ` +
              'ejecute records keys rotate para re-cifrarlos con la activa; nada ha cambiado',
          )
        const instances = (await liveInstances(env.database)).filter((i) => i.activeKeyId === keyId)
        if (instances.length > 0)
          throw commandFailed(
            `Instancias en marcha cifran aún con la clave ${keyId} (${instances.map(describeInstance).join('; ')}): nada ha cambiado`,
          )
        const registry = await retireKey(env.database, env.changes, keyId)
        const file = env.settings.encryptionKeyFile
        const keyFile = file !== undefined && removeFromKeyFile(file, keyId) ? file : undefined
        if (!registry && keyFile === undefined)
          throw commandFailed(`No hay ninguna clave ${keyId} en el registro ni en el fichero de claves`)
        if (flag(input, 'json')) printJson(input, { keyId, registry, keyFile: keyFile ?? null })
        else
          printLines(input, [
            `Clave ${keyId} retirada${registry ? ' del registro de la base de datos' : ''}` +
              `${keyFile === undefined ? '' : `${registry ? ' y' : ''} de ${keyFile}`}.`,
            ...(file === undefined ? ['Quítela también de RECORDS_ENCRYPTION_OLD_KEYS en cada instancia.'] : []),
            'Consérvela junto a las copias de seguridad anteriores a la rotación: restaurarlas la necesita.',
          ])
        return 0
      },
      { migrate: false },
    )
  },
}
