// `file` (D43): the evidence files of a record, uploaded one by one to
// POST /{module}/{id}/ficheros/{field}. Its value, as the record shows it, is the list of the stored
// files' metadata `{n, sha256, size, type, name}`, written only by an upload (never by a record's
// body): stored as JSON, so the record's `_hash` and versions cover it (D17). Not filterable or sortable.
import { NO_OPERATORS, type FieldTypeDef, type JsonSchema } from './field-type.js'
import { BASE_DECLARATION, jsonCell } from './shared.js'

/**
 * The MIME types the service recognises by their first bytes, the only ones a field's `types:` may
 * list: a file is refused unless its bytes are what its Content-Type says (D43). Each test reads
 * at most FILE_SIGNATURE_BYTES bytes.
 */
export const FILE_SIGNATURES: Readonly<Record<string, (head: Uint8Array) => boolean>> = {
  'application/pdf': (h) => starts(h, [0x25, 0x50, 0x44, 0x46, 0x2d]),
  'image/jpeg': (h) => starts(h, [0xff, 0xd8, 0xff]),
  'image/png': (h) => starts(h, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  'image/gif': (h) => ascii(h, 0, 'GIF87a') || ascii(h, 0, 'GIF89a'),
  'image/webp': (h) => ascii(h, 0, 'RIFF') && ascii(h, 8, 'WEBP'),
  'image/tiff': (h) => starts(h, [0x49, 0x49, 0x2a, 0x00]) || starts(h, [0x4d, 0x4d, 0x00, 0x2a]),
  'audio/wav': (h) => ascii(h, 0, 'RIFF') && ascii(h, 8, 'WAVE'),
  'audio/mpeg': (h) => ascii(h, 0, 'ID3') || (h.length > 1 && h[0] === 0xff && ((h[1] ?? 0) & 0xe0) === 0xe0),
  'video/mp4': (h) => ascii(h, 4, 'ftyp') && !ascii(h, 8, 'qt  '),
  'video/quicktime': (h) => ascii(h, 4, 'ftyp') && ascii(h, 8, 'qt  '),
  'application/zip': (h) => starts(h, [0x50, 0x4b, 0x03, 0x04]),
}

/** The most bytes a signature reads. */
export const FILE_SIGNATURE_BYTES = 16

const starts = (head: Uint8Array, bytes: readonly number[]): boolean => bytes.every((b, i) => head[i] === b)
const ascii = (head: Uint8Array, at: number, text: string): boolean =>
  [...text].every((c, i) => head[at + i] === c.charCodeAt(0))

/** One stored file as the record lists it. */
export const fileEntrySchema: JsonSchema = {
  type: 'object',
  required: ['n', 'sha256', 'size', 'type', 'name'],
  properties: {
    n: { type: 'integer', minimum: 1, description: 'Número del fichero en su campo, desde 1' },
    sha256: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'SHA-256 del contenido original' },
    size: { type: 'integer', minimum: 0, description: 'Tamaño en bytes' },
    type: { type: 'string', description: 'Tipo MIME, comprobado sobre el contenido' },
    name: { type: 'string', description: 'Nombre dado al subirlo (cabecera X-Nombre)' },
  },
}

export const fileType: FieldTypeDef = {
  declaration: {
    ...BASE_DECLARATION,
    encryptable: false,
    comparable: false,
    defaultFits: () => false,
    uploaded: true,
  },
  storage: 'json',
  label: 'ficheros',
  valueSchema: () => ({
    type: 'array',
    items: fileEntrySchema,
    description: 'Ficheros subidos con POST /{módulo}/{id}/ficheros/{campo}; no se escribe en el cuerpo del registro',
  }),
  parseFilter: null,
  operators: NO_OPERATORS,
  sortable: false,
  textual: false,
  cell: jsonCell,
  example: () => [
    {
      n: 1,
      sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      size: 0,
      type: 'application/pdf',
      name: 'acta.pdf',
    },
  ],
  demo: (f) => (f.def.required ? [] : undefined),
  textExamples: false,
}
