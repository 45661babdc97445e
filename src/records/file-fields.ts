// D43: a record body and its file fields. The service alone writes a file field (each upload adds
// to it), but a record read back is a valid body (D7): the field's value as read is accepted and
// ignored; any other value is refused, naming the route that adds files.
import type { ModuleSpec } from '../compile/types.js'
import { validationFailed } from '../errors.js'

type Values = Readonly<Record<string, unknown>>

/** A value that lists no file: absent, null or an empty list. */
const empty = (value: unknown): boolean =>
  value === undefined || value === null || (Array.isArray(value) && value.length === 0)

/**
 * The files of `sent` are those of `stored` as read at some time, key order aside: the same list,
 * or its first files (a record read before another upload arrived, which the body only sends back
 * and never changes). An empty list passes only while nothing is stored: it would read as
 * clearing the field.
 */
function readEarlier(sent: unknown, stored: unknown): boolean {
  if (empty(sent) || empty(stored)) return empty(sent) && empty(stored)
  if (!Array.isArray(sent) || !Array.isArray(stored) || sent.length > stored.length) return false
  const text = (value: readonly unknown[]) =>
    JSON.stringify(
      (value as readonly Record<string, unknown>[]).map((f) => [f['n'], f['sha256'], f['size'], f['type'], f['name']]),
    )
  return text(sent) === text(stored.slice(0, sent.length))
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
 * undefined on create, where it holds none): 400 when a body tries to change one, that is sends
 * anything but the list as it read (the whole of it, or its first files).
 */
export function withoutFileFields(spec: ModuleSpec, values: Values, stored?: (field: string) => unknown): Values {
  const files = spec.fields.filter((f) => f.uploaded === true && f.name in values)
  if (files.length === 0) return values
  const out: Record<string, unknown> = { ...values }
  for (const field of files) {
    if (!readEarlier(values[field.name], stored?.(field.name))) throw refusal(spec, field.name)
    delete out[field.name]
  }
  return out
}
