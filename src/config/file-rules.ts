// D43: what a `file` field declares: `max_size` and `types` (MIME types the service recognises by
// their bytes), both required there and refused on any other type; it cannot be required (a
// record is created before its files are uploaded).
import type { Report } from './access-rules.js'
import { FIELD_DECLARATIONS, FILE_MIME_TYPES } from './field-declarations.js'
import { didYouMean } from './suggest.js'
import type { FieldDef, ModuleDef, ModulesConfig } from './types.js'

export function checkFileFields(config: ModulesConfig, report: Report): void {
  for (const mod of config.modules) for (const field of mod.fields) checkFileField(mod, field, report)
}

function checkFileField(mod: ModuleDef, field: FieldDef, report: Report): void {
  const at = (key: string) => ['modules', mod.name, 'fields', field.name, key]
  const name = `${mod.name}.${field.name}`
  if (FIELD_DECLARATIONS[field.type].uploaded !== true) {
    for (const [key, value] of [
      ['max_size', field.maxSize],
      ['types', field.types],
    ] as const)
      if (value !== undefined) report(at(key), `${name}: '${key}' solo se admite en campos de tipo file.`)
    return
  }
  if (field.maxSize === undefined)
    report(at('type'), `${name}: un campo de tipo file necesita 'max_size' (tamaño máximo en bytes).`)
  if (field.types === undefined)
    report(at('type'), `${name}: un campo de tipo file necesita 'types' (los tipos MIME admitidos).`)
  for (const type of field.types ?? [])
    if (!FILE_MIME_TYPES.includes(type))
      report(
        at('types'),
        `${name}: el servicio no reconoce por su contenido el tipo '${type}'; admite ${FILE_MIME_TYPES.join(', ')}.${didYouMean(type, FILE_MIME_TYPES)}`,
      )
  if (field.required)
    report(
      at('required'),
      `${name}: un campo de tipo file no puede ser obligatorio (los ficheros se suben después de crear el registro).`,
    )
}
