// A NUL character (U+0000) is refused in every request, on both databases alike: PostgreSQL
// cannot store it in text or jsonb, and no record needs it (issue #8; D7: a clear 400, never a 500).
import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { validationFailed, type ErrorDetail } from '../errors.js'

const NUL = '\u0000'
const detail = (field: string): ErrorDetail => ({ field, message: `'${field}' contiene un carácter nulo (U+0000), que no se admite` })

/** Paths (`campo`, `lista[0]`, `objeto.clave`) of the strings and keys in `value` that hold a NUL. */
function nulPaths(value: unknown, path: string, out: string[]): void {
  if (out.length >= 10) return
  if (typeof value === 'string') {
    if (value.includes(NUL)) out.push(path)
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => nulPaths(item, `${path}[${i}]`, out))
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const at = path === '' ? key : `${path}.${key}`
      if (key.includes(NUL)) out.push(at)
      else nulPaths(item, at, out)
    }
  }
}

function urlNulFields(request: FastifyRequest): string[] {
  if (!/%00/i.test(request.url)) return []
  const [path = '', query = ''] = request.url.split('?', 2)
  const fields = /%00/i.test(path) ? ['ruta'] : []
  for (const [key, value] of new URLSearchParams(query)) if (key.includes(NUL) || value.includes(NUL)) fields.push(key.replaceAll(NUL, ''))
  return fields
}

async function nulGuard(app: FastifyInstance): Promise<void> {
  app.addHook('onRequest', async (request) => {
    const fields = urlNulFields(request)
    if (fields.length > 0) throw validationFailed(fields.map(detail))
  })
  app.addHook('preValidation', async (request) => {
    const fields: string[] = []
    nulPaths(request.body, '', fields)
    if (fields.length > 0) throw validationFailed(fields.map((f) => detail(f === '' ? 'cuerpo' : f)))
  })
}

export default fp(nulGuard, { name: 'records-nul-guard' })
