// `records migrate [--dry-run] [--allow-data-loss]`: the schema brought to modules.yaml,
// shown first in words and SQL; changes that take data out of the API need a flag.
import { applyMigration, reviewMigration, type MigrationReview } from '../../db/migrate/apply.js'
import { JSON_OPTION, flag, type Command, type CommandInput } from '../command.js'
import { withEnvironment } from '../environment.js'
import { printJson, printLines } from '../output.js'
import { countOf } from '../plural.js'

const SHOWN_IDS = 20

function planLines(review: MigrationReview): string[] {
  if (review.steps.length === 0) return ['La base de datos ya corresponde a modules.yaml: no hay cambios.']
  const lines = [`Plan de migración (${countOf(review.steps.length, 'pasos')}):`]
  review.steps.forEach((s, i) => {
    lines.push(`${i + 1}. ${s.description}${s.blocked ? '  [REQUIERE --allow-data-loss]' : ''}`)
    if (s.affected.length > 0)
      lines.push(
        `   Registros afectados (${s.affected.length}): ${s.affected.slice(0, SHOWN_IDS).join(', ')}${s.affected.length > SHOWN_IDS ? ', …' : ''}`,
      )
    for (const sql of s.sql) lines.push(`   ${sql}`)
  })
  return lines
}

const toJson = (review: MigrationReview) => ({
  blocked: review.blocked,
  steps: review.steps.map((s) => ({
    kind: s.step.kind,
    description: s.description,
    sql: s.sql,
    affected: s.affected,
    blocked: s.blocked,
  })),
})

const migrate: Command = {
  name: 'migrate',
  summary: 'Adapta la base de datos a modules.yaml (plan, SQL y aplicación en una transacción)',
  help: `
Uso: records migrate [--dry-run] [--allow-data-loss] [--json]

Compara modules.yaml con lo que la base de datos tiene migrado y muestra el plan en palabras
y en SQL: módulos y campos nuevos, índices, campos renombrados (renamed_from), campos que pasan
a cifrarse o a descifrarse. Después lo aplica entero en una transacción, o nada.

Sin opciones aplica lo que no quita datos: también cifra los valores existentes de un campo
que pasa a encrypted: true (y descifra los de uno que deja de estarlo), recalcula su _hash y
lo anota en la auditoría con la acción 'migrar'.

Se niega, listando los registros afectados, a:
  - quitar un campo con valores, cambiar el tipo de un campo con valores, quitar un módulo con
    registros: con --allow-data-loss los datos se archivan (la columna o la tabla pasa a
    llamarse _archived_<fecha>_<nombre>), nunca se borran, y salen de la API;
  - restringir un enum con valores fuera de la nueva lista, o hacer obligatorio un campo sin
    valor por defecto cuando hay registros sin él: con --allow-data-loss esos valores se
    quedan como están.

  --dry-run          muestra el plan y no cambia nada
  --allow-data-loss  aplica también los cambios anteriores
  --json             {"blocked", "steps": [{kind, description, sql, affected, blocked}], "applied"?}

Salida: 0 si se aplicó (o el plan se puede aplicar, con --dry-run); 1 si se niega.`,
  options: { ...JSON_OPTION, 'dry-run': { type: 'boolean' }, 'allow-data-loss': { type: 'boolean' } },
  positionals: { min: 0, max: 0 },
  async run(input: CommandInput) {
    const json = flag(input, 'json')
    const allowDataLoss = flag(input, 'allow-data-loss')
    return withEnvironment(
      input,
      async (env) => {
        const timezone = env.spec.service.timezone
        const review = await reviewMigration(env.database, env.spec.modules, env.clock, timezone)
        const refused = review.blocked && !allowDataLoss
        if (flag(input, 'dry-run') || refused || review.steps.length === 0) {
          if (json) printJson(input, toJson(review))
          else printLines(input, planLines(review))
          if (refused)
            input.stderr.write(
              'records: la migración quitaría datos de la API; nada se ha modificado. Revise los registros afectados o use --allow-data-loss\n',
            )
          return refused ? 1 : 0
        }
        const result = await applyMigration(env.database, env.spec.modules, {
          codec: env.codec,
          clock: env.clock,
          timezone,
          allowDataLoss,
        })
        if (json) printJson(input, { ...toJson(review), applied: result.applied, rewritten: result.rewritten })
        else
          printLines(input, [
            ...planLines(review),
            `Migración aplicada: ${result.applied.length} pasos, ${result.rewritten} registros reescritos.`,
          ])
        return 0
      },
      { migrate: false },
    )
  },
}

export const commands = [migrate]
