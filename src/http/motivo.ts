// The justification of a request (issue #15): `X-Motivo`, accepted on every request, kept in
// its consultation entry, required where modules.yaml's `motivo_requerido:` says so.
import type { FastifyRequest } from 'fastify'
import type { MotivoAction } from '../config/types.js'
import type { ModuleSpec } from '../compile/types.js'
import type { RequestContext } from '../db/record-store.js'
import { MOTIVO_MAX_LENGTH, motivoRequired, motivoTooLong, validationFailed } from '../errors.js'
import type { AuthContext } from './auth.js'

/**
 * Header values travel as bytes read as Latin-1: UTF-8 text ("investigación") is decoded back
 * to UTF-8, and percent-encoded text (encodeURIComponent) is decoded too. Blank: none.
 */
function decode(raw: string): string {
  let text = raw
  if (/%[0-9A-Fa-f]{2}/.test(text))
    try {
      text = decodeURIComponent(text)
    } catch {
      // not percent-encoding after all: kept as sent
    }
  else if (/[\u0080-\u00ff]/.test(text)) {
    const utf8 = Buffer.from(text, 'latin1').toString('utf8')
    if (!utf8.includes('\uFFFD')) text = utf8
  }
  return text.trim()
}

/** The request's justification; null when none; 400 when too long or sent twice. */
export function motivoOf(request: FastifyRequest): string | null {
  const raw = request.headers['x-motivo']
  if (raw === undefined) return null
  if (Array.isArray(raw))
    throw validationFailed([{ field: 'X-Motivo', message: 'La cabecera X-Motivo aparece más de una vez' }])
  const text = decode(raw)
  if (text.length > MOTIVO_MAX_LENGTH) throw motivoTooLong(text.length)
  return text === '' ? null : text
}

/** Who asked, from where, why: what a consultation entry records of the request. */
export const requestContextOf = (request: FastifyRequest): RequestContext => ({
  address: request.ip,
  requestId: String(request.id),
  motivo: motivoOf(request),
})

/** Whether modules.yaml requires this role to justify this action on this module and it did not. */
export function motivoMissing(
  spec: ModuleSpec,
  auth: AuthContext,
  action: MotivoAction,
  context: RequestContext,
): boolean {
  const roles = spec.def.motivoRequired?.[action]
  return roles !== undefined && context.motivo === null && roles.includes(auth.role.name)
}

/**
 * 400 when modules.yaml requires this role to justify this action on this module and it did not.
 * Every path that reveals a module's records asks it for that module (F3): its own routes, an
 * `?expand=` into it, a live feed of it.
 */
export function checkMotivo(spec: ModuleSpec, auth: AuthContext, action: MotivoAction, context: RequestContext): void {
  if (motivoMissing(spec, auth, action, context)) throw motivoRequired(spec.name, action, auth.role.name)
}
