// The justification of a request: `X-Motivo`, accepted on every request, kept in
// its consultation entry, required where modules.yaml's `motivo_requerido:` says so.
import type { FastifyRequest } from 'fastify'
import type { MotivoAction } from '../config/types.js'
import type { ModuleSpec } from '../compile/types.js'
import type { RequestContext } from '../db/records/types.js'
import {
  MOTIVO_MAX_LENGTH,
  motivoInvalid,
  motivoRequired,
  motivoTooLong,
  validationFailed,
  type MotivoFault,
} from '../errors.js'
import type { AuthContext } from './auth.js'

/**
 * Header values travel as bytes read as Latin-1: UTF-8 text ("investigación") is decoded back
 * to UTF-8, and percent-encoded text (encodeURIComponent) is decoded too. A tab counts as a
 * space (HTTP lets a header value hold one); the ends are trimmed.
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
  return text.replaceAll('\t', ' ').trim()
}

/** C0 and C1 controls (tab is made a space first), DEL, and the line and paragraph separators. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/
/** The marks that reorder how text shows (Trojan Source): LRM, RLM, ALM, embeddings, overrides, isolates. */
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/
/** Spaces and what renders as nothing (zero-width, soft hyphen, BOM, fillers, variation selectors...). */
const INVISIBLE_ONLY = /^[\p{White_Space}\p{Default_Ignorable_Code_Point}\u2800]*$/u

/**
 * Why a decoded motivo is refused (F1, F7), or undefined: a NUL stops PostgreSQL from storing the
 * entry, a control character forges lines in logs and exports, a bidirectional mark shows a reader
 * another text than the one stored, and a motivo of nothing visible justifies nothing.
 */
function motivoFault(text: string): MotivoFault | undefined {
  if (CONTROL.test(text)) return 'control'
  if (BIDI.test(text)) return 'bidi'
  if (INVISIBLE_ONLY.test(text)) return 'invisible'
  return undefined
}

/**
 * The request's justification; null when the header is absent or empty; 400 when sent twice, too
 * long, or holding control or bidirectional characters or nothing visible once decoded (F1, F7).
 */
export function motivoOf(request: FastifyRequest): string | null {
  const raw = request.headers['x-motivo']
  if (raw === undefined) return null
  if (Array.isArray(raw))
    throw validationFailed([{ field: 'X-Motivo', message: 'La cabecera X-Motivo aparece más de una vez' }])
  if (raw.trim() === '') return null
  const text = decode(raw)
  const fault = motivoFault(text)
  if (fault !== undefined) throw motivoInvalid(fault)
  if (text.length > MOTIVO_MAX_LENGTH) throw motivoTooLong(text.length)
  return text
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
