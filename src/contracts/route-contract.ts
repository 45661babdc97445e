// The one declaration of an endpoint: method, path, permission, parameters, body and answers.
// http/ registers the route and checks the caller from it; openapi/ writes the document from it.
// Pure data and JSON Schemas: no Fastify, no I/O, so `records openapi` and the app share it.
import type { JsonSchema } from '../compile/field-types.js'

export type OpenApiObject = Readonly<Record<string, unknown>>

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE'

/**
 * Who may call: `public` needs no token (D3, login); `bearer` a valid token, and the role must
 * hold `permission` when the contract names one (API reference 5.1, 5.2); `bearerOrTicket` a
 * token or a single-use ticket, checked by the handler (the live feed).
 */
export type RouteSecurity = 'public' | 'bearer' | 'bearerOrTicket'

/** The error answers of openapi/responses.ts, by component name; each stands for one status. */
export type ErrorResponseName =
  | 'BadRequest'
  | 'Unauthorized'
  | 'BadCredentials'
  | 'Forbidden'
  | 'NotFound'
  | 'Conflict'
  | 'TooLarge'
  | 'UnsupportedMediaType'
  | 'Unprocessable'
  | 'TooManyRequests'
  | 'InternalError'
  | 'Unavailable'

/** A header a success answer carries beyond the request id and the rate-limit headers. */
export type ExtraHeader = 'etag'

export interface ContentContract {
  /** Default `application/json`. */
  readonly mediaType?: string
  /** What the body is, envelope included (a `$ref` to a component where the document has one). */
  readonly schema: JsonSchema
  readonly example?: unknown
}

export interface ResponseContract {
  readonly description: string
  /** Headers beyond the common ones; `none` when not even those are sent (health skips the rate limits). */
  readonly headers?: readonly ExtraHeader[] | 'none'
  readonly content?: ContentContract
  /**
   * The plain JSON Schema the success body is written with (fast-json-stringify through
   * Fastify); absent: JSON.stringify. Only where no caller may receive a field it lacks.
   */
  readonly serializer?: JsonSchema
}

export interface BodyContract extends ContentContract {
  /**
   * The schema that validates the body, when the published `schema` is wider (a component that
   * also lists what the service accepts and ignores, D7); absent: `schema` itself validates.
   */
  readonly validates?: JsonSchema
}

export interface RouteContract {
  readonly operationId: string
  readonly method: HttpMethod
  /** Relative to the family's prefix, in Fastify syntax (`/:id`). */
  readonly url: string
  readonly tags: readonly string[]
  readonly summary: string
  readonly description: string
  readonly security: RouteSecurity
  /** `{module}.{action}` the role must hold, checked right after the token (API reference 5.2). */
  readonly permission?: string
  /**
   * A `bearer` route open to an account whose role requires a second factor it has not enrolled
   * (D42): the current user, logout and the enrolment itself; every other route answers 403.
   */
  readonly beforeEnrolment?: true
  /** Path, query and header parameters as OpenAPI parameter objects, each with its JSON Schema. */
  readonly parameters?: readonly OpenApiObject[]
  readonly body?: BodyContract
  /** Success answers by HTTP status. */
  readonly responses: Readonly<Record<number, ResponseContract>>
  /** The error answers the route may give. */
  readonly errors: readonly ErrorResponseName[]
}

/** Routes declared together and registered under one prefix (`''` or `/denuncias`). */
export interface ContractFamily<K extends string = string> {
  readonly prefix: string
  readonly routes: Readonly<Record<K, RouteContract>>
}

export const ref = (kind: 'schemas' | 'responses' | 'parameters' | 'headers', name: string): OpenApiObject => ({
  $ref: `#/components/${kind}/${name}`,
})

/** `{ success: true, data }` around a data schema (API reference 2.1). */
export const successEnvelope = (data: JsonSchema): JsonSchema => ({
  type: 'object',
  required: ['success', 'data'],
  properties: { success: { const: true }, data },
})

export const messageData: JsonSchema = {
  type: 'object',
  required: ['message'],
  properties: { message: { type: 'string' } },
}

/** OpenAPI path template of a route relative to the base path: `/denuncias/{id}`. */
export const openApiPath = (prefix: string, url: string): string =>
  `${prefix}${url === '/' && prefix !== '' ? '' : url}`.replace(/:([A-Za-z_]+)/g, '{$1}')

/**
 * A value computed on first use and kept: a contract's examples and parameter tables are read
 * only by the OpenAPI document, built on its first request, so a start does not pay for them.
 */
export function lazily<T>(compute: () => T): () => T {
  let value: { readonly is: T } | undefined
  return () => (value ??= { is: compute() }).is
}

/** A change of one existing record with a JSON body: what it may answer besides its 200. */
export const CHANGE_ERRORS: readonly ErrorResponseName[] = [
  'BadRequest',
  'Unauthorized',
  'Forbidden',
  'NotFound',
  'Conflict',
  'TooLarge',
  'UnsupportedMediaType',
  'TooManyRequests',
  'InternalError',
]
