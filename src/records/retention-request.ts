// The retention queue's query (GET /retencion) and a decision's body (POST /retencion/{module}/{id}),
// D41: checked against the compiled service, every problem reported at once as one 400. Pure.
import { badJson, MOTIVO_MAX_LENGTH, requiredMissing, validationFailed, type ErrorDetail } from '../errors.js'
import type { ModuleSpec, ServiceSpec } from '../compile/types.js'
import { parsePage, type QueryValue } from './list-query.js'

/**
 * The decisions on a record (D41): keep it (its next review from now), block it, lift the block.
 * `suprimir` is to come; a blocked record is recorded as such but not yet hidden.
 */
export const RETENTION_DECISIONS = ['conservar', 'bloquear', 'desbloquear'] as const
export type RetentionDecision = (typeof RETENTION_DECISIONS)[number]

/** Every parameter GET /retencion accepts. */
export const RETENTION_QUEUE_PARAMETERS = ['module', 'limit', 'offset'] as const

export interface RetentionQueueQuery {
  readonly limit: number
  readonly offset: number
  /** The modules asked about: one (`?module=`) or every module that declares `retention:`. */
  readonly modules: readonly ModuleSpec[]
}

/** The modules that declare `retention:`, in file order. */
export const retainedModules = (service: ServiceSpec): ModuleSpec[] =>
  service.modules.filter((m) => m.retention !== undefined)

export function parseRetentionQuery(
  query: Readonly<Record<string, QueryValue>>,
  service: ServiceSpec,
): RetentionQueueQuery {
  const problems: ErrorDetail[] = []
  const page = parsePage(query, service.service.list, problems)
  const retained = retainedModules(service)
  let modules = retained
  for (const [name, value] of Object.entries(query)) {
    if (!(RETENTION_QUEUE_PARAMETERS as readonly string[]).includes(name)) {
      problems.push({
        field: name,
        message: `Parámetro desconocido '${name}': use ${RETENTION_QUEUE_PARAMETERS.join(', ')}`,
      })
      continue
    }
    if (name !== 'module') continue
    if (typeof value !== 'string' || value === '') {
      problems.push({ field: name, message: "El parámetro 'module' debe aparecer una vez, con un nombre de módulo" })
      continue
    }
    const spec = retained.find((m) => m.name === value)
    if (spec === undefined)
      problems.push({
        field: name,
        message: `Módulo desconocido o sin conservación declarada (retention): '${value}'; módulos: ${retained.map((m) => m.name).join(', ')}`,
      })
    else modules = [spec]
  }
  if (problems.length > 0) throw validationFailed(problems)
  return { ...page, modules }
}

export interface RetentionDecisionBody {
  readonly decision: RetentionDecision
  readonly motivo: string
}

/** `{decision, motivo}`: both required, the decision one of RETENTION_DECISIONS, nothing else (D7). */
export function parseRetentionDecision(body: unknown): RetentionDecisionBody {
  if (body !== undefined && (body === null || typeof body !== 'object' || Array.isArray(body))) throw badJson()
  const b = (body ?? {}) as Record<string, unknown>
  const missing = (['decision', 'motivo'] as const).filter(
    (k) => typeof b[k] !== 'string' || String(b[k]).trim() === '',
  )
  if (missing.length > 0)
    throw requiredMissing(missing.map((field) => ({ field, message: `El campo '${field}' es obligatorio` })))
  const problems: ErrorDetail[] = Object.keys(b)
    .filter((k) => k !== 'decision' && k !== 'motivo')
    .map((field) => ({ field, message: `Campo desconocido '${field}'` }))
  const decision = String(b['decision'])
  if (!(RETENTION_DECISIONS as readonly string[]).includes(decision))
    problems.push({
      field: 'decision',
      message: `Decisión desconocida '${decision}': use ${RETENTION_DECISIONS.join(', ')}`,
    })
  const motivo = String(b['motivo']).trim()
  if (motivo.length > MOTIVO_MAX_LENGTH)
    problems.push({ field: 'motivo', message: `El motivo no puede superar ${MOTIVO_MAX_LENGTH} caracteres` })
  if (problems.length > 0) throw validationFailed(problems)
  return { decision: decision as RetentionDecision, motivo }
}
