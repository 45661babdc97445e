// The retention queue's query (GET /retencion) and a decision's body (POST /retencion/{module}/{id}),
// D41: checked against the compiled service, every problem reported at once as one 400. Pure.
import { badJson, MOTIVO_MAX_LENGTH, requiredMissing, validationFailed, type ErrorDetail } from '../errors.js'
import type { ModuleSpec, ServiceSpec } from '../compile/types.js'
import { parsePage, type QueryValue } from './list-query.js'

/**
 * The decisions on a record (D41): keep it (its next review from now), block it, lift the block,
 * erase it (`suprimir`: its values are destroyed and a tombstone stays).
 */
export const RETENTION_DECISIONS = ['conservar', 'bloquear', 'desbloquear', 'suprimir'] as const
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

/** The longest reference of a legal hold (a court file number, D41). */
export const HOLD_REFERENCE_MAX_LENGTH = 200

/** A legal hold put on a record (`POST .../retener`, D41): what protects it and why. */
export interface RetentionHoldBody {
  readonly referencia: string
  readonly motivo: string
}

/** A legal hold lifted (`DELETE .../retener`, D41). */
export interface RetentionReleaseBody {
  readonly motivo: string
}

/**
 * A body of exactly the `required` text fields (D7): a missing or blank one is 400 `Datos
 * requeridos`; an unknown key, or a text longer than its limit, 400 `Datos inválidos`. Trimmed.
 */
function textBody<K extends string>(
  body: unknown,
  limits: Readonly<Record<K, number>>,
): { values: Record<K, string>; problems: ErrorDetail[]; tooLong: () => ErrorDetail[] } {
  if (body !== undefined && (body === null || typeof body !== 'object' || Array.isArray(body))) throw badJson()
  const b = (body ?? {}) as Record<string, unknown>
  const keys = Object.keys(limits) as K[]
  const missing = keys.filter((k) => typeof b[k] !== 'string' || String(b[k]).trim() === '')
  if (missing.length > 0)
    throw requiredMissing(missing.map((field) => ({ field, message: `El campo '${field}' es obligatorio` })))
  const problems: ErrorDetail[] = Object.keys(b)
    .filter((k) => !(keys as string[]).includes(k))
    .map((field) => ({ field, message: `Campo desconocido '${field}'` }))
  const values = Object.fromEntries(keys.map((k) => [k, String(b[k]).trim()])) as Record<K, string>
  return { values, problems, tooLong: () => tooLong(values, limits) }
}

/** The texts of `values` longer than their limit. */
const tooLong = <K extends string>(values: Record<K, string>, limits: Readonly<Record<K, number>>): ErrorDetail[] =>
  (Object.keys(limits) as K[])
    .filter((k) => values[k].length > limits[k])
    .map((field) => ({
      field,
      message: `${field === 'motivo' ? 'El motivo' : `El campo '${field}'`} no puede superar ${limits[field]} caracteres`,
    }))

/** `{decision, motivo}`: both required, the decision one of RETENTION_DECISIONS, nothing else (D7). */
export function parseRetentionDecision(body: unknown): RetentionDecisionBody {
  const { values, problems, tooLong } = textBody(body, {
    decision: Number.MAX_SAFE_INTEGER,
    motivo: MOTIVO_MAX_LENGTH,
  })
  const { decision, motivo } = values
  if (!(RETENTION_DECISIONS as readonly string[]).includes(decision))
    problems.push({
      field: 'decision',
      message: `Decisión desconocida '${decision}': use ${RETENTION_DECISIONS.join(', ')}`,
    })
  problems.push(...tooLong())
  if (problems.length > 0) throw validationFailed(problems)
  return { decision: decision as RetentionDecision, motivo }
}

/** `{referencia, motivo}`: both required, nothing else (D41). */
export function parseRetentionHold(body: unknown): RetentionHoldBody {
  const { values, problems, tooLong } = textBody(body, {
    referencia: HOLD_REFERENCE_MAX_LENGTH,
    motivo: MOTIVO_MAX_LENGTH,
  })
  problems.push(...tooLong())
  if (problems.length > 0) throw validationFailed(problems)
  return values
}

/** `{motivo}`: required, nothing else (D41). */
export function parseRetentionRelease(body: unknown): RetentionReleaseBody {
  const { values, problems, tooLong } = textBody(body, { motivo: MOTIVO_MAX_LENGTH })
  problems.push(...tooLong())
  if (problems.length > 0) throw validationFailed(problems)
  return values
}
