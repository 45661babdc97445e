// GET /openapi.json and the docs page GET /docs (D3): no token. The page is Swagger UI served
// from this process (no CDN), reading the same document; its Authorize button takes the
// token of POST /auth/login.
import fastifySwagger, { type StaticDocumentSpec } from '@fastify/swagger'
import fastifySwaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import { systemContracts } from '../../contracts/system.js'
import type { OpenApiDocument } from '../../openapi/document.js'
import { serveRoute } from '../contract-route.js'

export interface DocsRoutesOptions {
  /** Built on the first request that needs it: a start does not pay for a page few will open. */
  readonly document: () => OpenApiDocument
  /** BASE_PATH: the page's asset links must carry it (the plugin only knows its own prefix). */
  readonly basePath: string
}

export async function docsRoutes(app: FastifyInstance, { document, basePath }: DocsRoutesOptions): Promise<void> {
  // A page load is several requests: the page and the document have their own, looser limit,
  // so reading the docs never spends the API's per-address budget.
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, rateLimitGroup: 'docs' }
  })
  let built: { readonly document: OpenApiDocument; readonly text: string } | undefined
  const current = () => {
    if (built === undefined) {
      const value = document()
      built = { document: value, text: JSON.stringify(value) }
    }
    return built
  }
  serveRoute(app, systemContracts.routes.openapi, async (_request, reply) =>
    reply.type('application/json; charset=utf-8').send(current().text),
  )

  // The page's plugin asks @fastify/swagger for the document; it gets ours, built on first use,
  // through transformSpecification below. The plugin itself only holds a stand-in.
  const standIn = { openapi: '3.1.0', info: { title: 'municipal-records', version: '' }, paths: {} }
  await app.register(fastifySwagger, {
    mode: 'static',
    specification: { document: standIn as unknown as StaticDocumentSpec['document'] },
  })
  await app.register(fastifySwaggerUi, {
    // The same object /openapi.json sends (OpenAPI 3.1; the plugin's types know 3.0 only).
    transformSpecification: () => current().document as unknown as Record<string, unknown>,
    transformSpecificationClone: false,
    routePrefix: systemContracts.routes.docs.url,
    indexPrefix: basePath === '/' ? '' : basePath,
    theme: { title: 'municipal-records · API' },
    uiConfig: {
      docExpansion: 'none',
      tryItOutEnabled: true,
      displayRequestDuration: true,
      persistAuthorization: false,
      deepLinking: true,
    },
  })
}
