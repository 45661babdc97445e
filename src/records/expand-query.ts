// `?expand=a,b`: the reference fields whose targets a read embeds. Pure.
import { validationFailed } from '../errors.js'
import type { ModuleSpec } from '../compile/types.js'
import type { QueryValue } from './list-query.js'

export const EXPAND_PARAMETER = 'expand'

/** The ref fields named, each once; 400 naming `expand` for anything else. */
export function parseExpand(spec: ModuleSpec, raw: QueryValue): string[] {
  if (raw === undefined) return []
  if (typeof raw !== 'string')
    throw validationFailed([{ field: EXPAND_PARAMETER, message: "El parámetro 'expand' aparece más de una vez" }])
  const names = [...new Set(raw.split(',').map((n) => n.trim()))]
  const refs = spec.references.map((r) => r.field)
  const unknown = names.filter((n) => !refs.includes(n))
  if (unknown.length > 0)
    throw validationFailed([
      {
        field: EXPAND_PARAMETER,
        message:
          refs.length === 0
            ? `El módulo ${spec.name} no tiene campos de referencia que expandir`
            : `No se puede expandir '${unknown.join("', '")}': los campos de referencia de ${spec.name} son ${refs.join(', ')}`,
      },
    ])
  return names
}
