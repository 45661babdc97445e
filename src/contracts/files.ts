// D43: the evidence files of a module's file fields: upload, download and custody entries, under
// `/{module}/{id}/ficheros/{field}`. Declared only for modules that have a file field.
import type { ModuleSpec } from '../compile/types.js'
import { fileEntrySchema } from '../compile/field-types/file.js'
import { MOTIVO_MAX_LENGTH } from '../errors.js'
import { idParameter } from './record-parameters.js'
import { scopeNote } from './scope-note.js'
import { successEnvelope, type ContractFamily, type ErrorResponseName, type OpenApiObject } from './route-contract.js'
import type { JsonSchema } from '../compile/field-types.js'

export type FileRoute = 'upload' | 'download' | 'custody'

const SHA256 = { type: 'string', pattern: '^[0-9a-f]{64}$' } as const

const custodyEntrySchema: JsonSchema = {
  type: 'object',
  required: ['seq', 'at', 'action', 'user_id', 'sha256', 'hash'],
  properties: {
    seq: { type: 'integer', description: 'Posición en la cadena de auditoría (D18).' },
    at: { type: 'string', description: 'AAAA-MM-DD HH:MM:SS.mmm, en la zona horaria del servicio' },
    action: {
      type: 'string',
      enum: ['fichero_ingreso', 'fichero_descarga', 'fichero_verificacion', 'fichero_exportacion'],
    },
    user_id: {
      type: ['string', 'null'],
      description:
        'Quién; en una descarga, solo para quien tiene el permiso de la auditoría (F2); null en una verificación del servicio.',
    },
    sha256: { ...SHA256, type: ['string', 'null'], description: 'El SHA-256 del fichero que la entrada registra.' },
    result: { type: 'string', enum: ['correcto', 'alterado'], description: 'Solo en una verificación.' },
    address: { type: ['string', 'null'], description: 'Solo para quien tiene el permiso de la auditoría.' },
    motivo: { type: ['string', 'null'], description: 'Solo para quien tiene el permiso de la auditoría.' },
    hash: { type: 'string', description: 'El hash de la entrada en la cadena (D18).' },
  },
}

const motivoHeader: OpenApiObject = {
  name: 'X-Motivo',
  in: 'header',
  required: false,
  description: 'Justificación, obligatoria para los roles que `motivo_requerido` nombra en el módulo (D29).',
  schema: { type: 'string', minLength: 1, maxLength: MOTIVO_MAX_LENGTH },
}

/** The file fields of a module, for the `field` path parameter. */
/** What a download or a custody read may answer besides its 200. */
const FILE_READ_ERRORS: readonly ErrorResponseName[] = [
  'BadRequest',
  'Unauthorized',
  'Forbidden',
  'NotFound',
  'TooManyRequests',
  'Unavailable',
  'InternalError',
]

const fileFields = (spec: ModuleSpec) => spec.fields.filter((f) => f.uploaded === true)

/** Undefined for a module without file fields. */
export function fileContracts(spec: ModuleSpec): ContractFamily<FileRoute> | undefined {
  const fields = fileFields(spec)
  if (fields.length === 0) return undefined
  const types = [...new Set(fields.flatMap((f) => f.def.types ?? []))]
  const limits = fields.map(
    (f) => `\`${f.name}\`: ${(f.def.types ?? []).join(', ')}; hasta ${f.def.maxSize ?? 0} bytes`,
  )
  const fieldParameter: OpenApiObject = {
    name: 'field',
    in: 'path',
    required: true,
    description: `Un campo de tipo file del módulo (${limits.join('. ')}).`,
    schema: { type: 'string', enum: fields.map((f) => f.name) },
  }
  const nParameter: OpenApiObject = {
    name: 'n',
    in: 'path',
    required: true,
    description: 'El número del fichero en su campo (`n` de la lista del registro).',
    schema: { type: 'integer', minimum: 1 },
  }
  // A file, and the motivo a download or a custody read may need (D29).
  const fileParameters = [idParameter(spec), fieldParameter, nParameter, motivoHeader]
  const scope = scopeNote(spec)
  const read = `**Permiso necesario:** \`${spec.permissions.ver}\`.${scope === undefined ? '' : `\n\n${scope}`}`
  return {
    prefix: `/${spec.name}`,
    routes: {
      upload: {
        operationId: `upload_file_${spec.name}`,
        method: 'POST',
        url: '/:id/ficheros/:field',
        tags: [spec.name],
        summary: `Subir un fichero a ${spec.name}`,
        description:
          'Prueba con cadena de custodia (D43). El cuerpo es el fichero tal cual (no JSON, no multipart), con su tipo en ' +
          '`Content-Type` y su nombre en `X-Nombre`. El tipo debe estar en `types` del campo (415) y ser el de su contenido ' +
          '(422); más de `max_size` es 413; con `X-SHA256`, un resumen distinto es 422. En esos casos no queda nada guardado. ' +
          'Se cifra con una clave propia y no se sobrescribe ni se borra por la API. Cada subida es una versión nueva del ' +
          'registro (su campo lista los ficheros) y una entrada `fichero_ingreso` de la auditoría.' +
          `\n\n**Permiso necesario:** \`${spec.permissions.editar}\`, dentro del ámbito de escritura del rol.`,
        security: 'bearer',
        permission: spec.permissions.editar,
        parameters: [
          idParameter(spec),
          fieldParameter,
          {
            name: 'X-Nombre',
            in: 'header',
            required: true,
            description:
              'El nombre del fichero (hasta 255 caracteres; codificado con encodeURIComponent si no es ASCII).',
            schema: { type: 'string', minLength: 1, maxLength: 255 },
          },
          {
            name: 'X-SHA256',
            in: 'header',
            required: false,
            description: 'El SHA-256 que calculó el cliente, en hexadecimal: si no coincide con lo recibido, 422.',
            schema: SHA256,
          },
          {
            ...motivoHeader,
            description: 'Justificación, obligatoria para los roles que `motivo_requerido.editar` nombra (D29).',
          },
        ],
        body: {
          mediaType: '*/*',
          schema: { type: 'string', format: 'binary', description: `El fichero; tipos: ${types.join(', ')}.` },
        },
        responses: {
          201: {
            description: 'Fichero guardado',
            content: {
              schema: successEnvelope(fileEntrySchema),
              example: {
                success: true,
                data: {
                  n: 1,
                  sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
                  size: 0,
                  type: types[0],
                  name: 'acta.pdf',
                },
              },
            },
          },
        },
        errors: [
          'BadRequest',
          'Unauthorized',
          'Forbidden',
          'NotFound',
          'Conflict',
          'TooLarge',
          'UnsupportedMediaType',
          'Unprocessable',
          'TooManyRequests',
          'Unavailable',
          'InternalError',
        ],
      },
      download: {
        operationId: `download_file_${spec.name}`,
        method: 'GET',
        url: '/:id/ficheros/:field/:n',
        tags: [spec.name],
        summary: `Descargar un fichero de ${spec.name}`,
        description:
          'Los bytes originales, descifrados, con su `Content-Type` y su nombre en `Content-Disposition` (D43). Es una ' +
          'consulta (D29): antes de enviarlos queda una entrada `fichero_descarga` con quién, cuándo, desde dónde, el motivo y ' +
          `el SHA-256.\n\n${read}`,
        security: 'bearer',
        permission: spec.permissions.ver,
        parameters: fileParameters,
        responses: {
          200: {
            description: 'El fichero',
            content: { mediaType: '*/*', schema: { type: 'string', format: 'binary' } },
          },
        },
        errors: FILE_READ_ERRORS,
      },
      custody: {
        operationId: `file_custody_${spec.name}`,
        method: 'GET',
        url: '/:id/ficheros/:field/:n/custodia',
        tags: [spec.name],
        summary: `Cadena de custodia de un fichero de ${spec.name}`,
        description:
          'Las entradas de la auditoría sobre el fichero, en orden (D43): su ingreso, cada descarga y cada verificación, con ' +
          'cuándo, quién y el SHA-256. Quién descargó, desde dónde y por qué, solo para quien tiene el permiso de la ' +
          `auditoría (F2).\n\n${read}`,
        security: 'bearer',
        permission: spec.permissions.ver,
        parameters: fileParameters,
        responses: {
          200: {
            description: 'Las entradas de custodia',
            content: {
              schema: successEnvelope({
                type: 'object',
                required: ['entries'],
                properties: { entries: { type: 'array', items: custodyEntrySchema } },
              }),
            },
          },
        },
        errors: FILE_READ_ERRORS,
      },
    },
  }
}
