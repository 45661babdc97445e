// D43: a record body and its file fields. The service alone writes a file field (each upload adds
// to it), but a record read back is a valid body (D7): the field's value as read is accepted and
// ignored; any other value is refused, naming the route that adds files.
import type { ModuleSpec } from '../compile/types.js'
import { validationFailed } from '../errors.js'

type Values = Readonly<Record<string, unknown>>

/** A value that lists no file: absent, null or an empty list. */
const empty = (value: unknown): boolean =>
  value === undefined || value === null || (Array.isArray(value) && value.length === 0)

/** The same list of files, key order aside. */
function sameFiles(a: unknown, b: unknown): boolean {
  if (empty(a) || empty(b)) return empty(a) && empty(b)
  const text = (value: unknown) =>
    JSON.stringify(
      (value as readonly Record<string, unknown>[]).map((f) => [f['n'], f['sha256'], f['size'], f['type'], f['name']]),
    )
  return Array.isArray(a) && Array.isArray(b) && text(a) === text(b)
}

const refusal = (spec: ModuleSpec, field: string) =>
  validationFailed([
    {
      field,
      message: `El campo '${field}' no se escribe en el registro: suba cada fichero con POST /${spec.name}/{id}/ficheros/${field}`,
    },
  ])

/**
 * `values` without its file fields, each checked against what the record holds (`stored`;
 * undefined on create, where it holds none): 400 when a body tries to change one.
 */
export function withoutFileFields(spec: ModuleSpec, values: Values, stored?: (field: string) => unknown): Values {
  const files = spec.fields.filter((f) => f.uploaded === true && f.name in values)
  if (files.length === 0) return values
  const out: Record<string, unknown> = { ...values }
  for (const field of files) {
    if (!sameFiles(values[field.name], stored?.(field.name))) throw refusal(spec, field.name)
    delete out[field.name]
  }
  return out
}
