// A route contract as an OpenAPI operation, and a family of them as paths. Nothing here decides
// what an endpoint does: the contracts (src/contracts/) say it, this only writes it down.
import {
  openApiPath,
  type ContentContract,
  type ContractFamily,
  type OpenApiObject,
  type ResponseContract,
  type RouteContract,
  type RouteSecurity,
} from '../contracts/route-contract.js'
import { commonHeaders, errorRefs } from './responses.js'

export type Paths = Record<string, Record<string, OpenApiObject>>

const SECURITY: Readonly<Record<RouteSecurity, readonly OpenApiObject[]>> = {
  public: [],
  bearer: [{ bearer: [] }],
  bearerOrTicket: [{ bearer: [] }, { ticket: [] }],
}

const contentOf = ({ mediaType, schema, example }: ContentContract): OpenApiObject => ({
  [mediaType ?? 'application/json']: { schema, ...(example === undefined ? {} : { example }) },
})

const responseOf = ({ description, headers, content }: ResponseContract): OpenApiObject => ({
  description,
  ...(headers === 'none' ? {} : { headers: commonHeaders(headers) }),
  ...(content === undefined ? {} : { content: contentOf(content) }),
})

/** The OpenAPI operation object of one contract. */
export function operationOf(contract: RouteContract): OpenApiObject {
  const { parameters, body, permission } = contract
  const responses = Object.fromEntries(
    Object.entries(contract.responses).map(([status, response]) => [status, responseOf(response)]),
  )
  return {
    operationId: contract.operationId,
    tags: contract.tags,
    summary: contract.summary,
    description: contract.description,
    ...(permission === undefined ? {} : { 'x-permission': permission }),
    security: SECURITY[contract.security],
    ...(parameters === undefined || parameters.length === 0 ? {} : { parameters }),
    ...(body === undefined ? {} : { requestBody: { required: true, content: contentOf(body) } }),
    responses: { ...responses, ...errorRefs(contract.errors) },
  }
}

/** The paths of a family, keyed by OpenAPI path then lower-case method, in declaration order. */
export function pathsOf(family: ContractFamily): Paths {
  const paths: Paths = {}
  for (const route of Object.values(family.routes)) {
    const path = openApiPath(family.prefix, route.url)
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operationOf(route) }
  }
  return paths
}
