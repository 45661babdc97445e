// GET /openapi.json and the docs page GET /docs (D3): no token. The page is Swagger UI served
// from this process (no CDN), reading the same document; its Authorize button takes the
// token of POST /auth/login.
import fastifySwagger, { type StaticDocumentSpec } from '@fastify/swagger'
import fastifySwaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import type { OpenApiDocument } from '../../openapi/document.js'

export interface DocsRoutesOptions {
  readonly document: OpenApiDocument
  /** BASE_PATH: the page's asset links must carry it (the plugin only knows its own prefix). */
  readonly basePath: string
}

export const DOCS_PREFIX = '/docs'

export async function docsRoutes(app: FastifyInstance, { document, basePath }: DocsRoutesOptions): Promise<void> {
  // A page load is several requests: the page and the document have their own, looser limit,
  // so reading the docs never spends the API's per-address budget (issue #18 item 3).
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, rateLimitGroup: 'docs' }
  })
  const text = JSON.stringify(document)
  app.get('/openapi.json', async (_request, reply) => reply.type('application/json; charset=utf-8').send(text))

  await app.register(fastifySwagger, {
    mode: 'static',
    // Its types know OpenAPI 3.0 only; the document is 3.1 (the same object /openapi.json sends).
    specification: { document: document as unknown as StaticDocumentSpec['document'] },
  })
  await app.register(fastifySwaggerUi, {
    routePrefix: DOCS_PREFIX,
    indexPrefix: basePath === '/' ? '' : basePath,
    theme: { title: 'municipal-records · API' },
    uiConfig: { docExpansion: 'none', tryItOutEnabled: true, displayRequestDuration: true, persistAuthorization: false, deepLinking: true },
  })
}
