// Checks the shape of modules.yaml against schema/modules.schema.json and words
// each ajv error as a sentence an administrator understands.
import type { ErrorObject } from 'ajv'
import type { ConfigProblem } from '../errors.js'
import { shapeValidator } from './shape-validator.js'
import { didYouMean } from './suggest.js'
import type { YamlPath, YamlSource } from './yaml-source.js'

const pathOf = (instancePath: string): YamlPath =>
  instancePath === ''
    ? []
    : instancePath
        .slice(1)
        .split('/')
        .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))

function allowedKeys(error: ErrorObject): string[] {
  const properties = (error.parentSchema as { properties?: Record<string, unknown> } | undefined)?.properties
  return properties === undefined ? [] : Object.keys(properties)
}

function describe(error: ErrorObject): { message: string; atKey: boolean; extraPath?: string } {
  const params = error.params as Record<string, unknown>
  switch (error.keyword) {
    case 'additionalProperties': {
      const key = String(params['additionalProperty'])
      return {
        message: `Clave desconocida '${key}'.${didYouMean(key, allowedKeys(error))}`,
        atKey: true,
        extraPath: key,
      }
    }
    case 'required':
      return { message: `Falta la clave obligatoria '${String(params['missingProperty'])}'.`, atKey: false }
    case 'enum': {
      const allowed = (params['allowedValues'] as unknown[]).map(String)
      return {
        message: `Valor no permitido; valores posibles: ${allowed.join(', ')}.${didYouMean(String(error.data), allowed)}`,
        atKey: false,
      }
    }
    case 'type':
      return { message: `Debe ser de tipo ${String(params['type'])}.`, atKey: false }
    case 'pattern':
      if (error.schemaPath.includes('identifier'))
        return {
          message: 'Nombre no válido: use minúsculas, cifras y guion bajo, empezando por una letra.',
          atKey: false,
        }
      if (error.instancePath.endsWith('/prefix'))
        return { message: 'El prefijo debe tener de 2 a 6 letras mayúsculas o cifras.', atKey: false }
      if (error.instancePath.includes('/permissions/'))
        return { message: "Permiso no válido: el formato es '{módulo}.{acción}' (se admite '*').", atKey: false }
      return { message: `No cumple el formato ${String(params['pattern'])}.`, atKey: false }
    case 'propertyNames':
      return {
        message: `Nombre no válido '${String(params['propertyName'])}': use minúsculas, cifras y guion bajo, empezando por una letra.`,
        atKey: true,
        extraPath: String(params['propertyName']),
      }
    case 'format':
      return { message: `No es un valor de formato ${String(params['format'])} válido.`, atKey: false }
    default:
      return { message: `${error.message ?? 'Valor no válido'}.`, atKey: false }
  }
}

/** Every shape problem of the document, located; an empty list when it fits the schema. */
export function validateShapeOf(source: YamlSource): ConfigProblem[] {
  const validateShape = shapeValidator()
  if (validateShape(source.value)) return []
  const errors = (validateShape.errors ?? []).filter(
    // propertyNames reports once for the name and once for the inner keyword; keep the first.
    (e, _i, all) =>
      !(
        e.keyword === 'pattern' &&
        all.some(
          (o) =>
            o.keyword === 'propertyNames' &&
            e.instancePath.startsWith(o.instancePath) &&
            e.instancePath === `${o.instancePath}/${String((o.params as Record<string, unknown>)['propertyName'])}`,
        )
      ),
  )
  const seen = new Set<string>()
  const problems: ConfigProblem[] = []
  for (const error of errors) {
    const { message, atKey, extraPath } = describe(error)
    const path = extraPath === undefined ? pathOf(error.instancePath) : [...pathOf(error.instancePath), extraPath]
    const where = path.join('.')
    const problem = source.problem(path, where === '' ? message : `${where}: ${message}`, atKey)
    const key = `${problem.line}:${problem.column}:${problem.message}`
    if (!seen.has(key)) {
      seen.add(key)
      problems.push(problem)
    }
  }
  return problems
}
