// Registers a route from its contract (src/contracts/): method and URL come from it; a `bearer`
// contract's token and permission are checked before the handler's own checks (401, then 403,
// then the 400s of the body and query, as API reference 5.1-5.2 orders them); a success answer
// whose status declares a `serializer` is written with it.
import type {
  FastifyContextConfig,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  RouteGenericInterface,
} from 'fastify'
import type { JsonSchema } from '../compile/field-types.js'
import type { RouteContract } from '../contracts/route-contract.js'
import { requirePermission, type AuthContext } from './auth.js'

export interface ContractRouteOptions {
  /** Route config for the plugins (rate limits). */
  readonly config?: FastifyContextConfig
}

type Handler<R extends RouteGenericInterface> = (request: FastifyRequest<R>, reply: FastifyReply) => Promise<unknown>
type AuthenticatedHandler<R extends RouteGenericInterface> = (
  request: FastifyRequest<R>,
  reply: FastifyReply,
  auth: AuthContext,
) => Promise<unknown>

/**
 * The contract's serializer for the answer's status (fast-json-stringify, compiled by Fastify on
 * first use and cached per schema). Set only once the result is in hand: an error thrown before
 * leaves through the error handler's envelope untouched, and a reply already sent (304) is left alone.
 */
function serialized(contract: RouteContract, reply: FastifyReply, result: unknown): unknown {
  const schema = contract.responses[reply.statusCode]?.serializer
  if (schema !== undefined && result !== reply && !reply.sent)
    // Fastify sets the JSON content type itself only for its default serializer.
    void reply.serializer(reply.compileSerializationSchema(schema)).type('application/json; charset=utf-8')
  return result
}

function register<R extends RouteGenericInterface>(
  app: FastifyInstance,
  contract: RouteContract,
  handler: Handler<R>,
  options: ContractRouteOptions,
): void {
  app.route({
    method: contract.method,
    url: contract.url,
    // authenticate() reads `beforeEnrolment` from here (D42).
    config: { ...options.config, ...(contract.beforeEnrolment === true ? { beforeEnrolment: true } : {}) },
    // The request's generic types are the handler's reading of the contract's parameters.
    handler: async (request, reply) => serialized(contract, reply, await handler(request as FastifyRequest<R>, reply)),
  })
}

/** The schema a contract's body is validated with; a contract without a body here is a programmer's bug. */
export function validatingSchema(contract: RouteContract): JsonSchema {
  if (contract.body === undefined) throw new Error(`${contract.operationId}: no body in its contract`)
  return contract.body.validates ?? contract.body.schema
}

/** A route whose handler checks the caller itself, or no one: `public` and `bearerOrTicket` contracts. */
export function serveRoute<R extends RouteGenericInterface = RouteGenericInterface>(
  app: FastifyInstance,
  contract: RouteContract,
  handler: Handler<R>,
  options: ContractRouteOptions = {},
): void {
  if (contract.security === 'bearer') throw new Error(`${contract.operationId}: a bearer contract needs its caller`)
  register(app, contract, handler, options)
}

/** A `bearer` route: the token (401) and the contract's permission (403) come before the handler. */
export function serveAuthenticated<R extends RouteGenericInterface = RouteGenericInterface>(
  app: FastifyInstance,
  contract: RouteContract,
  handler: AuthenticatedHandler<R>,
  options: ContractRouteOptions = {},
): void {
  if (contract.security !== 'bearer') throw new Error(`${contract.operationId}: not a bearer contract`)
  const { permission } = contract
  register<R>(
    app,
    contract,
    async (request, reply) => {
      const auth = await app.authenticate(request)
      if (permission !== undefined) requirePermission(auth, permission)
      return handler(request, reply, auth)
    },
    options,
  )
}
