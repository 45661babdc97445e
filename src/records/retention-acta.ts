// The acta de eliminación (D41): what a retention run that erased records signs, so that the
// erasure can be shown later without the database (whose rows are gone). Pure: its content
// from the run, and a file read back checked for its shape; the signature is cli/audit-checkpoint.ts's.
import { retentionDeclaration } from '../compile/retention.js'
import type { RetentionSpec } from '../compile/types.js'
import { auditHeadProblem, isRecord } from './signed-shape.js'

export const ACTA_KIND = 'municipal-records/acta-de-eliminacion' as const

/** The head of the audit chain after the run (db/audit/head.ts), as a checkpoint names it. */
export interface ActaAuditHead {
  readonly seq: number
  readonly hash: string
  readonly at: string
  readonly entradas: number
}

export interface ActaModule {
  readonly modulo: string
  /** The module's `retention.basis`: why the records were kept, and until when. */
  readonly base_legal: string
  readonly keep_at_most: string
  /** The erased records' ids. */
  readonly suprimidos: readonly string[]
}

/** The acta before its signature (clave_publica, huella, firma are added by signDocument). */
export interface ActaBody {
  readonly tipo: typeof ACTA_KIND
  readonly version: 1
  /** When the run erased them, in the service time zone, with milliseconds. */
  readonly fecha: string
  readonly zona_horaria: string
  /** Who ran it, as the audit entries name them (`sistema`, `cli:<user>`). */
  readonly actor: string
  readonly modulos: readonly ActaModule[]
  readonly total: number
  /**
   * The ids of the records' own data keys destroyed with them (D41): without them the values in
   * a copy of the database taken before the run cannot be decrypted. Empty when the erased
   * records had none (no encrypted field, or values never moved from the service key).
   */
  readonly claves_destruidas: readonly string[]
  /** The audit chain's head after the run: its entries of the erasures lead to it. */
  readonly auditoria: ActaAuditHead
}

export interface ActaInput {
  /** When the run ended, and in which time zone (the acta's `fecha` and `zona_horaria`). */
  readonly at: string
  readonly timezone: string
  readonly actor: string
  /** The erased ids per module, with the module's retention. */
  readonly erased: readonly {
    readonly module: string
    readonly retention: RetentionSpec
    readonly ids: readonly string[]
  }[]
  readonly destroyedKeys: readonly string[]
  readonly head: ActaAuditHead
}

const keepText = (retention: RetentionSpec): string => retentionDeclaration(retention)['keep_at_most'] ?? ''

/** The acta's content: one entry per module that erased something, ids in the order erased. */
export function actaBody(input: ActaInput): ActaBody {
  const modulos = input.erased
    .filter((m) => m.ids.length > 0)
    .map((m) => ({
      modulo: m.module,
      base_legal: m.retention.basis,
      keep_at_most: keepText(m.retention),
      suprimidos: [...m.ids],
    }))
  return {
    tipo: ACTA_KIND,
    version: 1,
    fecha: input.at,
    zona_horaria: input.timezone,
    actor: input.actor,
    modulos,
    total: modulos.reduce((n, m) => n + m.suprimidos.length, 0),
    claves_destruidas: [...input.destroyedKeys],
    auditoria: input.head,
  }
}

const isStringList = (value: unknown): boolean => Array.isArray(value) && value.every((v) => typeof v === 'string')

/** Why `value` is not an acta (its first problem), or undefined when its shape is one's. */
/**
 * The acta's file as written: its JSON indented by two spaces and a final newline. A verification
 * compares the file with it byte for byte as well as checking the signature, which covers the
 * parsed content only: spaces, key order, escapes or a repeated key would otherwise pass.
 */
export const actaText = (document: object): string => `${JSON.stringify(document, null, 2)}\n`

export function actaShapeProblem(value: unknown): string | undefined {
  if (!isRecord(value) || value['tipo'] !== ACTA_KIND)
    return `no es un acta de eliminación (se espera "tipo": "${ACTA_KIND}")`
  if (value['version'] !== 1) return `versión de acta desconocida: ${JSON.stringify(value['version'])}`
  const missing = ['fecha', 'zona_horaria', 'actor', 'clave_publica', 'huella', 'firma'].filter(
    (k) => typeof value[k] !== 'string',
  )
  if (missing.length > 0) return `faltan o no son texto: ${missing.join(', ')}`
  const modulos = value['modulos']
  const modulesOk =
    Array.isArray(modulos) &&
    modulos.every(
      (m) =>
        isRecord(m) &&
        typeof m['modulo'] === 'string' &&
        typeof m['base_legal'] === 'string' &&
        typeof m['keep_at_most'] === 'string' &&
        isStringList(m['suprimidos']),
    )
  if (!modulesOk) return '"modulos" no es una lista de {modulo, base_legal, keep_at_most, suprimidos}'
  const total = (modulos as { suprimidos: unknown[] }[]).reduce((n, m) => n + m.suprimidos.length, 0)
  if (value['total'] !== total) return `"total" (${JSON.stringify(value['total'])}) no es el número de ids (${total})`
  if (!isStringList(value['claves_destruidas'])) return '"claves_destruidas" no es una lista de ids'
  return auditHeadProblem(value['auditoria'])
}
