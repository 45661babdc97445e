// D41: the retention queue's query and a decision's body, every problem at once as one 400. Pure.
import t from 'tap'
import { isAppError } from '../../../src/errors.js'
import {
  parseRetentionDecision,
  parseRetentionHold,
  parseRetentionQuery,
  parseRetentionRelease,
} from '../../../src/records/retention-request.js'
import { shippedService } from '../support/config.js'

const service = shippedService()

/** The AppError `run` throws, as the envelope shows it. */
function refusal(run: () => unknown): { status: number; error: string; details: unknown } | undefined {
  try {
    run()
  } catch (error) {
    if (isAppError(error)) return { status: error.statusCode, error: error.message, details: error.details }
    throw error
  }
  return undefined
}

t.test('D41: the queue asks every module that declares retention, or the one of ?module=', async (t) => {
  const all = parseRetentionQuery({}, service)
  t.same(
    all.modules.map((m) => m.name),
    ['denuncias', 'sanciones', 'atestados', 'personal', 'sala092', 'turnos', 'usuarios'],
  )
  t.match(all, { limit: 100, offset: 0 })
  t.same(
    parseRetentionQuery({ module: 'sala092', limit: '5' }, service).modules.map((m) => m.name),
    ['sala092'],
  )
})

t.test('D41: an unknown or retention-less module, a repeated one and an unknown parameter: one 400', async (t) => {
  const refused = refusal(() => parseRetentionQuery({ module: 'vehiculos', modulo: 'x', limit: '0' }, service))
  t.match(refused, { status: 400 })
  t.same(
    (refused?.details as { field: string }[]).map((d) => d.field),
    ['limit', 'module', 'modulo'],
    'all problems at once',
  )
  t.match(
    refusal(() => parseRetentionQuery({ module: ['denuncias', 'sanciones'] }, service)),
    { status: 400 },
  )
})

t.test('D41: a decision needs decision and motivo, a known decision, nothing else', async (t) => {
  t.same(parseRetentionDecision({ decision: 'bloquear', motivo: '  Fin de la necesidad  ' }), {
    decision: 'bloquear',
    motivo: 'Fin de la necesidad',
  })
  t.same(
    refusal(() => parseRetentionDecision(undefined)),
    {
      status: 400,
      error: 'Datos requeridos',
      details: [
        { field: 'decision', message: "El campo 'decision' es obligatorio" },
        { field: 'motivo', message: "El campo 'motivo' es obligatorio" },
      ],
    },
  )
  t.match(
    refusal(() => parseRetentionDecision({ decision: 'archivar', motivo: 'x', otro: 1 })),
    {
      status: 400,
      error:
        "Datos inválidos: Campo desconocido 'otro'; Decisión desconocida 'archivar': use conservar, bloquear, desbloquear, suprimir",
    },
  )
  t.match(
    refusal(() => parseRetentionDecision({ decision: 'conservar', motivo: 'x'.repeat(501) })),
    { status: 400 },
  )
  t.match(
    refusal(() => parseRetentionDecision('conservar')),
    { status: 400, error: 'JSON inválido' },
  )
  t.match(
    refusal(() => parseRetentionDecision({ decision: 'conservar', motivo: 7 })),
    { status: 400, error: 'Datos requeridos' },
  )
})

t.test('D41: a legal hold needs referencia and motivo; lifting it, motivo; nothing else', async (t) => {
  t.same(parseRetentionHold({ referencia: ' DP 123/2026 ', motivo: 'Juzgado de instrucción 2' }), {
    referencia: 'DP 123/2026',
    motivo: 'Juzgado de instrucción 2',
  })
  t.same(
    refusal(() => parseRetentionHold({ motivo: 'x' })),
    {
      status: 400,
      error: 'Datos requeridos',
      details: [{ field: 'referencia', message: "El campo 'referencia' es obligatorio" }],
    },
  )
  t.same(
    refusal(() => parseRetentionHold({ referencia: 'x'.repeat(201), motivo: 'x', decision: 'y' })),
    {
      status: 400,
      error: "Datos inválidos: Campo desconocido 'decision'; El campo 'referencia' no puede superar 200 caracteres",
      details: [
        { field: 'decision', message: "Campo desconocido 'decision'" },
        { field: 'referencia', message: "El campo 'referencia' no puede superar 200 caracteres" },
      ],
    },
  )
  t.same(parseRetentionRelease({ motivo: 'Sobreseimiento firme' }), { motivo: 'Sobreseimiento firme' })
  t.match(
    refusal(() => parseRetentionRelease(undefined)),
    { status: 400, error: 'Datos requeridos' },
  )
  t.match(
    refusal(() => parseRetentionRelease({ motivo: 'x', referencia: 'y' })),
    { status: 400 },
  )
  t.match(
    refusal(() => parseRetentionRelease([])),
    { status: 400, error: 'JSON inválido' },
  )
})
