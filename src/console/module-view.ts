// The shape of GET /me/modulos (D46): the caller's view of each module, as the API computes it.
export interface FieldView {
  readonly nombre: string
  readonly tipo: string
  readonly ayuda: string
  readonly descripcion?: string
  readonly requerido: boolean
  readonly lee: boolean
  readonly escribe: boolean
  readonly cifrado: boolean
  readonly ordenable: boolean
  readonly operadores: readonly string[]
  readonly valores?: readonly string[]
  readonly formato?: string
  readonly modulo?: string
}

export interface Move {
  readonly a: string
  readonly requiere: readonly string[]
}

export interface WorkflowView {
  readonly campo: string
  readonly estados: readonly string[]
  readonly inicial: readonly string[]
  readonly finales: readonly string[]
  readonly movimientos: Readonly<Record<string, readonly Move[]>>
}

export interface ModuleView {
  readonly nombre: string
  readonly descripcion: string
  readonly prefijo: string
  readonly acciones: readonly string[]
  readonly busqueda: boolean
  readonly motivo: readonly string[]
  readonly campos: readonly FieldView[]
  readonly workflow?: WorkflowView
}

export type RecordData = Readonly<Record<string, unknown>>

/** `fecha_hechos` as `Fecha hechos`: a field's name as a label. */
export const labelOf = (name: string): string => {
  const words = name.replace(/^_+/, '').replaceAll('_', ' ')
  return words.charAt(0).toUpperCase() + words.slice(1)
}

/** A value as text for a table cell or a definition list. */
export function shown(value: unknown): string {
  if (value === null || value === undefined) return '—'
  if (typeof value === 'object') return JSON.stringify(value)
  if (typeof value === 'boolean') return value ? 'sí' : 'no'
  return String(value)
}
