// `records retention plan [--json]` (D41): what is due under each module's `retention:` and what
// its `on_expiry` would do. Reads only: it applies nothing and audits nothing (no value is read).
import { retentionDeclaration, retentionNote } from '../../compile/retention.js'
import { formatTimestamp } from '../../compile/time.js'
import { plannedAction, type PlannedAction } from '../../records/retention-due.js'
import { retainedModules } from '../../records/retention-request.js'
import { JSON_OPTION, flag, type Command } from '../command.js'
import { withEnvironment } from '../environment.js'
import { printJson, printLines } from '../output.js'
import { countOf } from '../plural.js'
import { retentionActa } from './retention-acta.js'
import { retentionRun } from './retention-run.js'

const ACTION_WORDS: Readonly<Record<PlannedAction, string>> = {
  revisar: 'revisión por una persona (retencion.decidir)',
  bloquear: 'se bloquearía',
  suprimir: 'se suprimiría',
}

const plan: Command = {
  name: 'retention plan',
  summary: 'Muestra los registros vencidos según la conservación (retention) de cada módulo y qué se haría con ellos',
  help: `
Uso: records retention plan [--json]

Para cada módulo que declara 'retention:' en modules.yaml (D41): su base legal y sus plazos, y
los registros vencidos, del que lleva más tiempo vencido al que menos, con la razón (revision:
pasó review_every desde from o desde su última revisión; plazo_maximo: pasó keep_at_most desde
from) y lo que se haría: una revisión pendiente siempre espera a una persona; pasado el plazo
máximo, lo que diga on_expiry (review: revisión, block: bloqueo, erase: supresión). No aplica
nada: el bloqueo y la supresión automáticos los aplica 'records retention run'. Todos los
registros, sin ámbito de rol; no lee valores.

  --json  {"at", "total", "modules": [{"module", "retention", "due": [{"id", "due_since", "reason", "action"}]}]}`,
  options: JSON_OPTION,
  positionals: { min: 0, max: 0 },
  async run(input) {
    return withEnvironment(input, async (env) => {
      const at = formatTimestamp(env.clock(), env.spec.service.timezone)
      const modules = []
      for (const spec of retainedModules(env.spec)) {
        const retention = spec.retention
        if (retention === undefined) continue
        const { entries } = await env.retention.queue([spec], null)
        modules.push({
          spec,
          retention,
          due: entries.map((e) => ({
            id: e.id,
            due_since: e.due_since,
            reason: e.reason,
            action: plannedAction(e.reason, retention.onExpiry),
          })),
        })
      }
      const total = modules.reduce((n, m) => n + m.due.length, 0)
      if (flag(input, 'json')) {
        printJson(input, {
          at,
          total,
          modules: modules.map(({ spec, retention, due }) => ({
            module: spec.name,
            retention: retentionDeclaration(retention),
            due,
          })),
        })
        return 0
      }
      const lines = [`Conservación a ${at}: ${countOf(total, 'registros vencidos', 'registro vencido')}`]
      for (const { spec, retention, due } of modules) {
        lines.push('', `${spec.name}: ${countOf(due.length, 'vencidos')}`, `  ${retentionNote(retention)}`)
        for (const d of due)
          lines.push(`  ${d.id}  vencido desde ${d.due_since} (${d.reason}): ${ACTION_WORDS[d.action]}`)
      }
      printLines(input, lines)
      return 0
    })
  },
}

export const commands = [plan, retentionRun, retentionActa]
