// GET /auditoria query (D25): limit/offset as lists, filters modulo, registro, usuario, accion.
import { validationFailed, type ErrorDetail } from '../errors.js'
import { parsePage, type ListLimits, type QueryValue } from './list-query.js'

export const AUDIT_FILTERS = { modulo: 'module', registro: 'record_id', usuario: 'user_id', accion: 'action' } as const

/**
 * Every action an audit entry can record (D18, D25); `integridad`: a stored value failed its check;
 * `comunicar`: a disclosure (an export) naming its recipient and reason (issue #15).
 */
export const AUDIT_ACTIONS = [
  'crear',
  'importar',
  'editar',
  'eliminar',
  'login',
  'login_fallido',
  'login_alerta',
  'logout',
  'consultar',
  'comunicar',
  'recifrar',
  'migrar',
  'integridad',
] as const

export interface AuditQuery {
  readonly limit: number
  readonly offset: number
  readonly filters: readonly { readonly column: string; readonly value: string }[]
}

export function parseAuditQuery(query: Readonly<Record<string, QueryValue>>, limits: ListLimits): AuditQuery {
  const problems: ErrorDetail[] = []
  const page = parsePage(query, limits, problems)
  const filters: { column: string; value: string }[] = []
  for (const [name, value] of Object.entries(query)) {
    if (name === 'limit' || name === 'offset') continue
    const column = (AUDIT_FILTERS as Record<string, string>)[name]
    if (column === undefined)
      problems.push({
        field: name,
        message: `Filtro desconocido '${name}': use ${Object.keys(AUDIT_FILTERS).join(', ')}`,
      })
    else if (typeof value !== 'string')
      problems.push({ field: name, message: `El parámetro '${name}' aparece más de una vez` })
    // An action outside the list matches nothing: say so, as an enum filter on records does (issue #13 item 6).
    else if (name === 'accion' && !(AUDIT_ACTIONS as readonly string[]).includes(value))
      problems.push({
        field: name,
        message: `El filtro 'accion' debe ser uno de: ${AUDIT_ACTIONS.join(', ')} (recibido '${value}')`,
      })
    else filters.push({ column, value })
  }
  if (problems.length > 0) throw validationFailed(problems)
  return { ...page, filters }
}
