// What the JSON Schema cannot say about `retention:` (D41): a module with personal data declares
// it; its durations parse; `from` names `_created`, a date or datetime field, or a state that exists.
import type { Report } from './access-rules.js'
import { parseDuration } from './duration.js'
import { FIELD_DECLARATIONS } from './field-declarations.js'
import { didYouMean } from './suggest.js'
import { STATE_FROM_PREFIX, type ModuleDef, type ModulesConfig } from './types.js'

/** The metadata a retention clock may start from. */
const FROM_METADATA = '_created'

function checkFrom(mod: ModuleDef, from: string, report: Report): void {
  const at = ['modules', mod.name, 'retention', 'from']
  if (from === FROM_METADATA) return
  if (from.startsWith(STATE_FROM_PREFIX)) {
    const state = from.slice(STATE_FROM_PREFIX.length)
    const field = mod.fields.find((f) => f.state)
    if (field?.enum === undefined)
      report(at, `${mod.name}: 'from: ${from}' necesita un campo de estado en el módulo, y no lo tiene.`)
    else if (!field.enum.includes(state))
      report(
        at,
        `${mod.name}: 'from' nombra un estado que no existe: '${state}' (estados de ${field.name}: ${field.enum.join(', ')}).${didYouMean(state, field.enum)}`,
      )
    return
  }
  // The types that hold a moment of the calendar are those a `$now` default fits.
  const moments = mod.fields.filter((f) => FIELD_DECLARATIONS[f.type].acceptsNow).map((f) => f.name)
  const field = mod.fields.find((f) => f.name === from)
  if (field === undefined)
    report(
      at,
      `${mod.name}: 'from' nombra un campo que no existe: '${from}' (se admiten ${FROM_METADATA}, un campo de fecha o fecha y hora, o ${STATE_FROM_PREFIX}<estado>).${didYouMean(from, [FROM_METADATA, ...moments])}`,
    )
  else if (!moments.includes(from))
    report(at, `${mod.name}: 'from' debe ser un campo de fecha o fecha y hora; '${from}' es de tipo ${field.type}.`)
  // The clock is read from the column: a ciphertext cannot be compared with a date.
  else if (field.encrypted)
    report(at, `${mod.name}: 'from' no puede ser un campo cifrado ('${from}'): su fecha no se puede comparar.`)
}

function checkDuration(mod: ModuleDef, key: 'review_every' | 'keep_at_most', text: string, report: Report): void {
  if (parseDuration(text) === undefined)
    report(
      ['modules', mod.name, 'retention', key],
      `${mod.name}: '${key}' no es una duración válida: '${text}' (un número entero y y, m o d: 3y, 6m, 30d).`,
    )
}

/** Every module's `retention:`, and its absence where the module holds personal data. */
export function checkRetention(config: ModulesConfig, report: Report): void {
  for (const mod of config.modules) {
    const retention = mod.retention
    if (retention === undefined) {
      if (mod.personalData === true)
        report(
          ['modules', mod.name],
          `${mod.name}: un módulo con datos personales (personal_data: true) debe declarar 'retention:' (basis, from, review_every), D41.`,
          true,
        )
      continue
    }
    checkFrom(mod, retention.from, report)
    checkDuration(mod, 'review_every', retention.reviewEvery, report)
    if (retention.keepAtMost !== undefined) checkDuration(mod, 'keep_at_most', retention.keepAtMost, report)
  }
}
