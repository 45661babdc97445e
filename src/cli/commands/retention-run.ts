// `records retention run [--acta-dir DIR] [--json]` applies the automatic expiries of D41 and
// signs the acta de eliminación of what it erased (retention-acta.ts verifies one). Listed by
// retention.ts (a command's file is its first word).
import { resolve } from 'node:path'
import { runRetention, type RetentionRunReport } from '../../app/retention-run.js'
import type { Expiry } from '../../db/retention/run.js'
import { commandFailed } from '../../errors.js'
import { publicKeyFileOf } from '../audit-checkpoint.js'
import { JSON_OPTION, flag, stringOption, type Command } from '../command.js'
import { settingsOf, withEnvironment } from '../environment.js'
import { messageOf, printJson, printLines } from '../output.js'
import { countOf } from '../plural.js'

const DONE: Readonly<Record<Expiry['decision'], string>> = { bloquear: 'bloqueado', suprimir: 'suprimido' }

function runLines(report: RetentionRunReport, keyFile: string): string[] {
  const { applied, skipped, acta } = report
  const blocked = applied.filter((e) => e.decision === 'bloquear').length
  const erased = applied.length - blocked
  if (applied.length === 0 && skipped.length === 0 && report.failure === undefined)
    return [
      `Conservación a ${report.at}: nada que bloquear ni suprimir (ningún registro ha pasado su keep_at_most en un módulo con on_expiry block o erase).`,
    ]
  const counts = [
    countOf(blocked, 'bloqueados', 'bloqueado'),
    countOf(erased, 'suprimidos', 'suprimido'),
    ...(skipped.length > 0 ? [`${countOf(skipped.length, 'omitidos', 'omitido')} (no aceptaron la decisión)`] : []),
  ]
  const lines = [`Conservación a ${report.at}: ${counts.join(', ')}.`]
  for (const e of applied)
    lines.push(`  ${e.module} ${e.id}: ${DONE[e.decision]} (plazo máximo cumplido el ${e.keep_until})`)
  for (const e of skipped)
    lines.push(`  ${e.module} ${e.id}: no ${DONE[e.decision]}: ${[e.reason, ...e.details].join('; ')}`)
  if (report.reclaimed === false)
    lines.push(
      'Aviso: otra conexión leía la base de datos y su WAL no se pudo vaciar: puede guardar páginas de antes de las supresiones hasta el próximo vaciado (al parar el servicio, o con otra supresión).',
    )
  if (acta?.file !== undefined)
    lines.push(
      ...(acta.keyCreated ? [`Clave de firma creada en ${keyFile} (pública: ${publicKeyFileOf(keyFile)}).`] : []),
      `Acta de eliminación: ${acta.file} (firmada con la clave ${acta.document.huella}; records retention acta la verifica).`,
    )
  return lines
}

const run: Command = {
  name: 'retention run',
  summary: 'Aplica el bloqueo y la supresión automáticos de la conservación (on_expiry) y firma el acta de eliminación',
  help: `
Uso: records retention run [--acta-dir carpeta] [--json]

Lo que el servicio hace cada día (D41): cada registro que ha pasado el keep_at_most de su módulo
se bloquea (on_expiry: block) o se suprime (on_expiry: erase), una decisión por registro con su
entrada de auditoría a nombre de cli:<usuario> y un motivo que nombra la base legal y el plazo.
Una revisión pendiente (review_every) espera siempre a una persona, y on_expiry: review no hace
nada aquí. Un registro que no acepta la decisión (retenido por una orden judicial, o decidido por
otra persona en ese momento) se omite y se informa; no es un fallo. Repetirlo no hace nada más.

Si suprime algún registro escribe un acta de eliminación firmada (ids por módulo, base legal,
hora, claves destruidas y cabeza de la cadena de auditoría tras la ejecución) en
RETENTION_ACTA_DIR (por defecto DATA_DIR/actas), firmada con la clave de los puntos de
control (AUDIT_CHECKPOINT_KEY_FILE); records retention acta la verifica sin base de datos.

  --acta-dir carpeta  dónde escribir el acta (se crea con permisos 0700 si falta)
  --json              {"at", "applied": [{"module", "id", "keep_until", "decision"}], "skipped": [... "reason", "details"], "acta": fichero o null}`,
  options: { ...JSON_OPTION, 'acta-dir': { type: 'string' } },
  positionals: { min: 0, max: 0 },
  async run(input) {
    const settings = settingsOf(input)
    const dirOption = stringOption(input, 'acta-dir')
    const actaDir = dirOption === undefined ? settings.retentionActaDir : resolve(input.cwd, dirOption)
    return withEnvironment(input, async (env) => {
      const report = await runRetention({
        database: env.database,
        spec: env.spec,
        store: env.retention,
        clock: env.clock,
        actor: env.actor,
        actaDir,
        keyFile: settings.auditCheckpointKeyFile,
        sweepKeys: () => env.recordKeys.sweep(env.spec.modules),
        onSweepError: (error) =>
          void input.stderr.write(
            `records: no se pudieron destruir las claves de datos pendientes de registros suprimidos (${messageOf(error)}); se reintenta en el próximo arranque o ejecución\n`,
          ),
      })
      if (flag(input, 'json'))
        printJson(input, {
          at: report.at,
          // The destroyed data keys are the acta's (claves_destruidas), not each line's.
          applied: report.applied.map(({ module, id, keep_until, decision }) => ({ module, id, keep_until, decision })),
          skipped: report.skipped,
          acta: report.acta?.file ?? null,
          ...(report.failure === undefined ? {} : { error: messageOf(report.failure) }),
        })
      else printLines(input, runLines(report, settings.auditCheckpointKeyFile))
      const { acta } = report
      if (acta !== undefined && acta.file === undefined) {
        // The records are erased: the signed acta must not be lost with the file.
        input.stdout.write(`${JSON.stringify(acta.document, null, 2)}\n`)
        throw commandFailed(`No se pudo escribir el acta de eliminación en ${actaDir} (${acta.error}); va en la salida`)
      }
      if (report.failure !== undefined)
        throw commandFailed(
          report.applied.length === 0
            ? `No se aplicó nada: ${messageOf(report.failure)}`
            : `La ejecución se detuvo: ${messageOf(report.failure)} (lo aplicado antes queda aplicado)`,
        )
      return 0
    })
  },
}

export const retentionRun = run
