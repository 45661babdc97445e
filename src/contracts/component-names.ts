// The names a module's schemas are published under in the OpenAPI document's components.
import type { ModuleSpec } from '../compile/types.js'

export interface ModuleNames {
  readonly record: string
  readonly create: string
  readonly update: string
}

/** Component names must match ^[a-zA-Z0-9._-]+$: accents and ñ are spelled out. */
export const componentName = (module: string): string =>
  module
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => `${part[0]?.toUpperCase() ?? ''}${part.slice(1)}`)
    .join('')

export const moduleComponentNames = (spec: ModuleSpec): ModuleNames => {
  const base = componentName(spec.name)
  return { record: `${base}Registro`, create: `${base}Alta`, update: `${base}Cambios` }
}
