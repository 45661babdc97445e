// The YAML library's syntax errors, said in Spanish for whoever edits modules.yaml (its own
// messages are English); an error this table does not know keeps the library's wording.
import type { YAMLError } from 'yaml'

const MESSAGES: Readonly<Record<string, string>> = {
  ALIAS_PROPS: 'un alias (*nombre) no puede llevar etiqueta ni ancla',
  BAD_ALIAS: 'alias (*nombre) sin un ancla (&nombre) anterior',
  BAD_DIRECTIVE: 'directiva (%...) no reconocida',
  BAD_DQ_ESCAPE: 'secuencia de escape no válida entre comillas dobles',
  BAD_INDENT:
    'sangría incorrecta: las claves de un mismo mapa empiezan en la misma columna, y un { } o [ ] abierto se cierra antes de volver a la sangría de su clave',
  BAD_PROP_ORDER: 'el ancla y la etiqueta deben ir antes del valor',
  BAD_SCALAR_START: 'un valor sin comillas no puede empezar por ese carácter (póngalo entre comillas)',
  BLOCK_AS_IMPLICIT_KEY: 'una lista o un mapa no puede ser una clave',
  BLOCK_IN_FLOW: 'una lista o un mapa de varias líneas no puede ir dentro de [ ] o { }',
  DUPLICATE_KEY: 'clave repetida: cada clave debe aparecer una sola vez en su mapa',
  MISSING_CHAR: 'falta un carácter de cierre (comilla, ] o })',
  MULTILINE_IMPLICIT_KEY: 'una clave debe caber en una línea (¿falta un espacio tras los dos puntos?)',
  MULTIPLE_ANCHORS: 'un valor no puede tener dos anclas',
  MULTIPLE_DOCS: 'el fichero debe tener un solo documento (sobra una línea ---)',
  MULTIPLE_TAGS: 'un valor no puede tener dos etiquetas',
  NON_STRING_KEY: 'las claves deben ser texto',
  TAB_AS_INDENT: 'sangría con tabuladores: use espacios',
  TAG_RESOLVE_FAILED: 'etiqueta (!...) no reconocida',
  UNEXPECTED_TOKEN: 'texto inesperado en esta posición (revise la sangría y los dos puntos)',
  BAD_COLLECTION_TYPE: 'tipo de colección no válido para esa etiqueta',
}

/** `YAML no válido: <what is wrong, in Spanish>`. */
export function yamlErrorMessage(error: YAMLError): string {
  return `YAML no válido: ${MESSAGES[error.code] ?? error.message.split('\n')[0] ?? error.code}`
}
