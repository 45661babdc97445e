// GET /auditoria query (D25): limit/offset as lists; filters modulo, accion,
// registro, usuario, desde/hasta and "who consulted this person" (dni=, campo= + valor=). Pure.
import { validationFailed, type ErrorDetail } from '../errors.js'
import { formatExactTimestamp } from '../compile/time.js'
import type { AccountsSpec, FieldSpec, ModuleSpec, ServiceSpec } from '../compile/types.js'
import { canonicalUsername } from './account-rules.js'
import { parsePage, type ListLimits, type QueryValue } from './list-query.js'

/** Filters compared exactly with one column. */
export const AUDIT_FILTERS = { modulo: 'module', accion: 'action' } as const

/** Every parameter GET /auditoria accepts, in the order the API reference lists them. */
export const AUDIT_PARAMETERS = [
  'limit',
  'offset',
  'desde',
  'hasta',
  'usuario',
  'modulo',
  'registro',
  'accion',
  'dni',
  'campo',
  'valor',
] as const

/**
 * Every action an audit entry can record (D18, D25); `integridad`: a stored value failed its check;
 * `comunicar`: a disclosure (an export) naming its recipient and reason;
 * `password_fallido`: a wrong current password on POST /me/password, by the token's account (F6);
 * `segundo_factor_*` and `recuperacion_usada`: a second factor enrolled, removed, reset, a wrong
 * code given to remove one, a recovery code spent (D42);
 * `conservar`, `bloquear`, `desbloquear`, `suprimir`: a retention decision on a record (D41), with its motivo;
 * `retener`, `liberar`: a legal hold put on a record or lifted, with its motivo and reference (D41).
 */
export const AUDIT_ACTIONS = [
  'crear',
  'importar',
  'editar',
  'eliminar',
  'login',
  'login_fallido',
  'login_alerta',
  'password_fallido',
  'logout',
  'consultar',
  'comunicar',
  'recifrar',
  'migrar',
  'integridad',
  'segundo_factor_alta',
  'segundo_factor_baja',
  'segundo_factor_reset',
  'segundo_factor_fallido',
  'recuperacion_usada',
  'conservar',
  'bloquear',
  'desbloquear',
  'suprimir',
  'retener',
  'liberar',
  // D43: the custody of evidence files.
  'fichero_ingreso',
  'fichero_descarga',
  'fichero_verificacion',
  'fichero_exportacion',
] as const

/** An encrypted field whose blind index locates a person's records (D16). */
export interface PersonField {
  readonly module: ModuleSpec
  readonly field: FieldSpec
}

export interface AuditQuery {
  readonly limit: number
  readonly offset: number
  readonly filters: readonly { readonly column: string; readonly value: string }[]
  /** Entries at or after / at or before, as `at` is stored (`YYYY-MM-DD HH:MM:SS.mmm`, service time zone). */
  readonly from?: string
  readonly to?: string
  /** An account's id or username (any spelling), or a command-line actor (`cli:<name>`). */
  readonly user?: { readonly value: string; readonly accounts: AccountsSpec }
  /** A record id: the entry's record_id, or one of the ids a read returned (record_ids). */
  readonly record?: string
  /** Entries that returned, read or searched a record holding `value` in one of `fields`. */
  readonly person?: { readonly value: string; readonly fields: readonly PersonField[] }
}

/** `dni=` searches every encrypted field with one of these names (`dni`, `nif`, `*_dni`, `*_nif`). */
export const isIdentityDocumentField = (name: string): boolean => /(^|_)(dni|nif)$/.test(name)

const TIME = /^(\d{4})-(\d{2})-(\d{2})(?: (\d{2}):(\d{2}):(\d{2})(?:\.(\d{3}))?)?$/
/** Past the largest Date (8.64e15 ms) nothing is stored. */
const MAX_MS = 8_640_000_000_000_000

/**
 * A bound of `desde`/`hasta` as `at` is stored: epoch milliseconds are formatted in the service
 * time zone; a local `YYYY-MM-DD[ HH:MM:SS[.mmm]]` is taken as written (the service's wall
 * clock), a missing part filled to the start (`desde`) or the end (`hasta`) of that day or
 * second. Undefined: not a time.
 */
export function auditTimeBound(raw: string, timezone: string, end: boolean): string | undefined {
  if (/^\d+$/.test(raw)) {
    const ms = Number(raw)
    return ms > MAX_MS ? undefined : formatExactTimestamp(new Date(ms), timezone)
  }
  const match = TIME.exec(raw)
  if (match === null) return undefined
  const [, y, mo, d, h, mi, s, ms] = match
  const parts = [y, mo, d, h ?? (end ? '23' : '00'), mi ?? (end ? '59' : '00'), s ?? (end ? '59' : '00')].map(Number)
  const [year, month, day, hour, minute, second] = parts as [number, number, number, number, number, number]
  const date = new Date(Date.UTC(year, month - 1, day))
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined
  if (hour > 23 || minute > 59 || second > 59) return undefined
  const two = (n: number) => String(n).padStart(2, '0')
  return `${y}-${mo}-${d} ${two(hour)}:${two(minute)}:${two(second)}.${ms ?? (end ? '999' : '000')}`
}

const TIME_HINT = 'milisegundos desde 1970 o AAAA-MM-DD[ HH:MM:SS] en la zona horaria del servicio'

/** The encrypted fields `campo` names: `modulo.campo`, or `campo` in every module that has it. */
function fieldsNamed(service: ServiceSpec, campo: string, problems: ErrorDetail[]): PersonField[] {
  const [moduleName, fieldName] = campo.includes('.') ? campo.split('.', 2) : [undefined, campo]
  const modules =
    moduleName === undefined ? service.modules : [service.moduleByName.get(moduleName)].filter((m) => m !== undefined)
  const found = modules.flatMap((module) => {
    const field = module.fieldsByName.get(fieldName ?? '')
    return field === undefined ? [] : [{ module, field }]
  })
  const encrypted = found.filter((f) => f.field.blindIndexColumn !== undefined)
  if (encrypted.length === 0)
    problems.push({
      field: 'campo',
      message:
        found.length === 0
          ? `El parámetro 'campo' no nombra ningún campo ('${campo}'): use campo o modulo.campo`
          : `El campo '${campo}' no está cifrado: 'campo' busca por el índice ciego de un campo cifrado`,
    })
  return encrypted
}

export function parseAuditQuery(
  query: Readonly<Record<string, QueryValue>>,
  limits: ListLimits,
  service: ServiceSpec,
): AuditQuery {
  const problems: ErrorDetail[] = []
  const page = parsePage(query, limits, problems)
  const filters: { column: string; value: string }[] = []
  const values: Partial<Record<(typeof AUDIT_PARAMETERS)[number], string>> = {}
  for (const [name, value] of Object.entries(query)) {
    if (name === 'limit' || name === 'offset') continue
    if (!(AUDIT_PARAMETERS as readonly string[]).includes(name))
      problems.push({
        field: name,
        message: `Filtro desconocido '${name}': use ${AUDIT_PARAMETERS.filter((p) => p !== 'limit' && p !== 'offset').join(', ')}`,
      })
    else if (typeof value !== 'string')
      problems.push({ field: name, message: `El parámetro '${name}' aparece más de una vez` })
    else if (value === '') problems.push({ field: name, message: `El parámetro '${name}' está vacío` })
    else values[name as (typeof AUDIT_PARAMETERS)[number]] = value
  }

  for (const name of ['modulo', 'accion'] as const) {
    const value = values[name]
    if (value === undefined) continue
    // An action outside the list matches nothing: say so, as an enum filter on records does.
    if (name === 'accion' && !(AUDIT_ACTIONS as readonly string[]).includes(value))
      problems.push({
        field: name,
        message: `El filtro 'accion' debe ser uno de: ${AUDIT_ACTIONS.join(', ')} (recibido '${value}')`,
      })
    else filters.push({ column: AUDIT_FILTERS[name], value })
  }

  const timezone = service.service.timezone
  const bound = (name: 'desde' | 'hasta'): string | undefined => {
    const raw = values[name]
    if (raw === undefined) return undefined
    const parsed = auditTimeBound(raw, timezone, name === 'hasta')
    if (parsed === undefined)
      problems.push({ field: name, message: `El parámetro '${name}' debe ser ${TIME_HINT} (recibido '${raw}')` })
    return parsed
  }
  const from = bound('desde')
  const to = bound('hasta')
  if (from !== undefined && to !== undefined && from > to)
    problems.push({ field: 'hasta', message: `El parámetro 'hasta' es anterior a 'desde'` })

  let person: AuditQuery['person']
  const { dni, campo, valor } = values
  if (dni !== undefined && (campo !== undefined || valor !== undefined))
    problems.push({ field: 'dni', message: "Use 'dni' o 'campo' con 'valor', no ambos" })
  else if (dni !== undefined) {
    const fields = service.modules.flatMap((module) =>
      module.fields
        .filter((f) => f.blindIndexColumn !== undefined && isIdentityDocumentField(f.name))
        .map((field) => ({ module, field })),
    )
    person = { value: dni, fields }
  } else if (campo !== undefined || valor !== undefined) {
    if (campo === undefined) problems.push({ field: 'campo', message: "El parámetro 'valor' necesita 'campo'" })
    else if (valor === undefined) problems.push({ field: 'valor', message: "El parámetro 'campo' necesita 'valor'" })
    else {
      const fields = fieldsNamed(service, campo, problems)
      if (fields.length > 0) person = { value: valor, fields }
    }
  }

  if (problems.length > 0) throw validationFailed(problems)
  return {
    ...page,
    filters,
    ...(from === undefined ? {} : { from }),
    ...(to === undefined ? {} : { to }),
    ...(values.usuario === undefined ? {} : { user: { value: values.usuario, accounts: service.accounts } }),
    ...(values.registro === undefined ? {} : { record: values.registro }),
    ...(person === undefined ? {} : { person }),
  }
}

/** The username as stored (account-rules.ts): `usuario=` matches any spelling of it. */
export const storedUsername = canonicalUsername
