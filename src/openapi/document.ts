// buildOpenApiDocument: the compiled service in, its OpenAPI 3.1 document out. Pure: no I/O,
// no clock. Served at GET {BASE_PATH}/openapi.json (D3) and written by `records openapi`.
import { retentionDeclaration, retentionNote } from '../compile/retention.js'
import type { ModuleSpec, ServiceSpec } from '../compile/types.js'
import { moduleSchemas } from './module-schemas.js'
import { AUDIT_ENTRY_COMPONENT, auditEntrySchema } from '../contracts/audit.js'
import type { OpenApiObject } from '../contracts/route-contract.js'
import { serviceContracts } from '../contracts/service.js'
import { pathsOf } from './operation.js'
import { errorComponents } from './responses.js'

export interface OpenApiOptions {
  /** The `{base_url}` path every endpoint hangs from, as BASE_PATH: `/api`, or `/` for none. */
  readonly basePath: string
  /** The service's version (package.json), shown as `info.version`. */
  readonly version: string
  /** Absolute server URL to announce instead of the bare base path (e.g. behind a proxy). */
  readonly serverUrl?: string
}

export type OpenApiDocument = OpenApiObject & {
  readonly openapi: '3.1.0'
  readonly paths: Readonly<Record<string, Readonly<Record<string, OpenApiObject>>>>
}

const DESCRIPTION = [
  'API REST de los registros de la policía municipal, generada desde `modules.yaml`.',
  '',
  'Todas las respuestas llevan el sobre `{ success: true, data }` o `{ success: false, error, details? }` con el mensaje en español.',
  'Inicie sesión con `POST /auth/login`, pulse **Authorize** y pegue `data.token`: las demás llamadas lo envían como `Authorization: Bearer <token>`.',
  'Cada operación indica el permiso `{módulo}.{acción}` que necesita (`x-permission`).',
].join('\n')

/** A module's tag: its description, and its retention (D41) in words and as `x-retencion`. */
function moduleTag(spec: ModuleSpec): OpenApiObject {
  const description = spec.def.description ?? `Módulo ${spec.name} (prefijo ${spec.prefix}).`
  if (spec.retention === undefined) return { name: spec.name, description }
  return {
    name: spec.name,
    description: `${description}\n\n${retentionNote(spec.retention)}`,
    'x-retencion': retentionDeclaration(spec.retention),
  }
}

/**
 * The OpenAPI 3.1 document of a compiled service: one operation per route contract of every
 * family (contracts/service.ts), the modules' schemas as components, the errors of errors.ts.
 */
export function buildOpenApiDocument(compiled: ServiceSpec, options: OpenApiOptions): OpenApiDocument {
  const paths = Object.assign({}, ...serviceContracts(compiled).map(pathsOf)) as OpenApiDocument['paths']
  const schemas = Object.assign({}, ...compiled.modules.map(moduleSchemas)) as Record<string, unknown>
  const list = compiled.service.list
  return {
    openapi: '3.1.0',
    info: {
      title: 'municipal-records',
      version: options.version,
      summary: 'Registros de la policía municipal',
      description: DESCRIPTION,
      license: { name: 'Uso interno del ayuntamiento', identifier: 'LicenseRef-Propietaria' },
    },
    servers: [
      { url: options.serverUrl ?? (options.basePath === '/' ? '/' : options.basePath), description: 'Este servicio' },
    ],
    tags: [
      { name: 'sesion', description: 'Inicio y cierre de sesión, usuario actual (API reference 4.1-4.3).' },
      ...compiled.modules.map(moduleTag),
      { name: compiled.audit.path, description: 'Cadena de auditoría (D18, D25).' },
      {
        name: compiled.retention.path,
        description: 'Conservación de los registros con datos personales: cola de revisión y decisiones (D41).',
      },
      {
        name: compiled.subjects.path,
        description: 'Qué se guarda de una persona: los registros que guardan uno de sus identificadores (D41).',
      },
      { name: 'eventos', description: 'Cambios en vivo por Server-Sent Events (D36).' },
      { name: 'sistema', description: 'Estado y documentación (D3).' },
    ],
    paths,
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: `Token de \`POST /auth/login\`, válido ${compiled.service.tokenDays} días.`,
        },
        ticket: {
          type: 'apiKey',
          in: 'query',
          name: 'ticket',
          description: 'Vale de un solo uso de `POST /eventos/ticket`, solo para `GET /eventos`.',
        },
      },
      schemas: { ...errorComponents.schemas, [AUDIT_ENTRY_COMPONENT]: auditEntrySchema, ...schemas },
      responses: errorComponents.responses,
      headers: errorComponents.headers,
      parameters: {
        limit: {
          name: 'limit',
          in: 'query',
          required: false,
          description: `Registros por página; por encima de ${list.maxLimit} se recorta a ${list.maxLimit} (D11).`,
          schema: { type: 'integer', minimum: 1, default: list.defaultLimit },
        },
        offset: {
          name: 'offset',
          in: 'query',
          required: false,
          description: 'Registros que se saltan desde el principio.',
          schema: { type: 'integer', minimum: 0, default: 0 },
        },
      },
    },
  }
}
