// `records restore <backup>`: a backup of `records backup` back in place of the SQLite database,
// with the service stopped. Checked before anything moves (a sound SQLite file of this service
// whose audit chain and record hashes verify with the configured keys); the current database is
// kept aside, never deleted. PostgreSQL: the documented pg_restore procedure (docs/operators.md).
import { existsSync, statSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import { openEngine } from '../../app/engine.js'
import { createDatabase } from '../../db/connect.js'
import { liveInstances } from '../../db/keys/instance-heartbeat.js'
import { checkBackupFile, discardStaged, stageBackup, swapInRestored } from '../../db/operations/restore.js'
import { verifyIntegrity } from '../../db/operations/verify-integrity.js'
import { recordKeysFile } from '../../db/keys/record-keys.js'
import { isOperatorError, restoreRefused } from '../../errors.js'
import { JSON_OPTION, flag, type Command } from '../command.js'
import { settingsOf } from '../environment.js'
import { describeInstance } from '../key-report.js'
import { printJson, printLines } from '../output.js'
import type { Settings } from '../../app/settings.js'
import { countOf } from '../plural.js'

/** Refuses while an instance reported a heartbeat on this database (within three of its intervals). */
async function refuseWhileRunning(file: string): Promise<void> {
  if (!existsSync(file)) return
  const database = await createDatabase(`sqlite:${file}`)
  try {
    const running = await liveInstances(database).catch(() => [])
    if (running.length > 0)
      throw restoreRefused(
        `El servicio está en marcha sobre ${file} (${running.map(describeInstance).join('; ')}): ` +
          'deténgalo antes de restaurar; nada ha cambiado',
      )
  } finally {
    await database.close()
  }
}

/** The staged copy's audit chain, record hashes and keys, checked as `records audit verify` does. */
async function verifyStaged(settings: Settings, staged: string, shownAs: string): Promise<number> {
  const noop = () => undefined
  const engine = await openEngine(
    { ...settings, databaseUrl: `sqlite:${staged}` },
    {
      migrate: false,
      sealAudit: false,
      onReadAuditError: noop,
      onSealError: noop,
      // The installation's key database (D41), not one beside the staged copy: a record erased
      // after the backup reads as erased (its key is gone), the others read as they should.
      recordKeysFile: recordKeysFile(settings.databaseUrl.slice('sqlite:'.length)),
      // Only read: the staged copy's tombstones must not destroy keys of the live store (D41).
      sweepRecordKeys: false,
    },
  )
  try {
    const report = await verifyIntegrity(engine.database, engine.spec, engine.codec, 1, {
      keyIds: new Set(engine.keyring.keys.keys()),
    })
    if (report.problems.length > 0)
      throw restoreRefused(
        `${shownAs} no supera la verificación de la auditoría (${countOf(report.problems.length, 'problemas')}; el primero: ` +
          `${report.problems[0]?.message ?? ''}): nada ha cambiado`,
      )
    return report.entries
  } finally {
    await engine.close()
  }
}

const restore: Command = {
  name: 'restore',
  summary: 'Restaura una copia de records backup en lugar de la base de datos SQLite (servicio parado)',
  help: `
Uso: records restore <copia> [--json]

Con el servicio detenido, pone la copia (hecha con records backup) en lugar de la base de datos
SQLite (DATABASE_URL o DATA_DIR/records.db):
  1. no hace nada si alguna instancia del servicio está en marcha sobre la base de datos (la que
     anotó su latido en _instances hace menos de tres intervalos): deténgala antes;
  2. copia la copia junto a la base de datos y la comprueba: que sea una base de datos SQLite
     sana (integrity_check) de este servicio, y que su cadena de auditoría, el _hash de cada
     registro y la clave de cada valor cifrado se verifiquen con las claves configuradas (una
     copia anterior a una rotación necesita las claves de entonces);
  3. renombra la base de datos actual a <nombre>.antes-de-restaurar-<fecha> (no la borra nunca)
     y pone la copia comprobada en su lugar con un renombrado atómico.
Si algo falla antes del paso 3, nada ha cambiado. En PostgreSQL no restaura: siga el
procedimiento con pg_restore de docs/operators.md.

  --json   {"restored", "from", "previous", "auditEntries"}

Salida: 0 si la copia está restaurada; 1 si se rechaza (nada ha cambiado).`,
  options: JSON_OPTION,
  positionals: { min: 1, max: 1 },
  async run(input) {
    const settings = settingsOf(input)
    if (!settings.databaseUrl.startsWith('sqlite:'))
      throw restoreRefused(
        'records restore es para SQLite; en PostgreSQL restaure con pg_restore siguiendo docs/operators.md ' +
          '("Restore a backup"): nada ha cambiado',
      )
    const backup = resolve(input.cwd, input.positionals[0] ?? '')
    if (!statSync(backup, { throwIfNoEntry: false })?.isFile()) throw restoreRefused(`No existe el fichero ${backup}`)
    const database = resolve(settings.databaseUrl.slice('sqlite:'.length))
    await refuseWhileRunning(database)
    const stamp = new Date().toISOString().replace(/[:.]/g, '-')
    const staged = join(dirname(database), `.${basename(database)}.restaurando-${stamp}`)
    let entries: number
    try {
      stageBackup(backup, staged)
      checkBackupFile(staged, backup)
      entries = await verifyStaged(settings, staged, backup)
    } catch (error) {
      discardStaged(staged)
      if (isOperatorError(error)) throw error
      throw restoreRefused(`No se pudo comprobar ${backup}: ${(error as Error).message}; nada ha cambiado`)
    }
    const aside = `${database}.antes-de-restaurar-${stamp}`
    const previous = swapInRestored(database, staged, aside) ? aside : null
    if (flag(input, 'json')) printJson(input, { restored: database, from: backup, previous, auditEntries: entries })
    else
      printLines(input, [
        `Copia ${backup} restaurada en ${database} (${entries} entradas de auditoría verificadas).`,
        previous === null
          ? 'No había base de datos anterior.'
          : `La base de datos anterior queda en ${previous}: no se ha borrado.`,
        'Arranque el servicio; records audit verify comprueba de nuevo la cadena.',
      ])
    return 0
  },
}

export const commands = [restore]
