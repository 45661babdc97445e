// The query of GET /interesados (D41): a person's identifier (`valor`) and a page, every problem
// reported at once as one 400. Pure. A message never repeats the identifier: it is personal data.
import { requiredMissing, validationFailed, type ErrorDetail } from '../errors.js'
import { parsePage, type ListLimits, type QueryValue } from './list-query.js'

/** Every parameter GET /interesados accepts. */
export const SUBJECT_PARAMETERS = ['valor', 'limit', 'offset'] as const

/** The longest identifier accepted: a document number, a telephone, an email fit many times over. */
export const SUBJECT_VALUE_MAX_LENGTH = 200

export interface SubjectQuery {
  /** The identifier as given: blind indexes are exact, so it is neither trimmed nor folded. */
  readonly value: string
  readonly limit: number
  readonly offset: number
}

export function parseSubjectQuery(query: Readonly<Record<string, QueryValue>>, limits: ListLimits): SubjectQuery {
  const problems: ErrorDetail[] = []
  const page = parsePage(query, limits, problems)
  for (const name of Object.keys(query))
    if (!(SUBJECT_PARAMETERS as readonly string[]).includes(name))
      problems.push({ field: name, message: `Parámetro desconocido '${name}': use ${SUBJECT_PARAMETERS.join(', ')}` })
  const raw = query['valor']
  if (raw === undefined || raw === '' || (typeof raw === 'string' && raw.trim() === ''))
    throw requiredMissing([
      ...problems,
      {
        field: 'valor',
        message: "El parámetro 'valor' es obligatorio: el identificador de la persona (p. ej. su DNI)",
      },
    ])
  if (typeof raw !== 'string') problems.push({ field: 'valor', message: "El parámetro 'valor' aparece más de una vez" })
  else if (raw.length > SUBJECT_VALUE_MAX_LENGTH)
    problems.push({
      field: 'valor',
      message: `El parámetro 'valor' no puede superar ${SUBJECT_VALUE_MAX_LENGTH} caracteres`,
    })
  if (problems.length > 0) throw validationFailed(problems)
  return { value: raw as string, ...page }
}
