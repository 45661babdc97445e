// A NUL character (U+0000) is refused in every request, on both databases alike: PostgreSQL
// cannot store it in text or jsonb, and no record needs it (D7: a clear 400, never a 500).
import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { validationFailed, type ErrorDetail } from '../errors.js'

const NUL = '\u0000'
const detail = (field: string): ErrorDetail => ({
  field,
  message: `'${field}' contiene un carácter nulo (U+0000), que no se admite`,
})

/** What JSON parsing makes: an object of Object's prototype (or none), not a stream or any other instance. */
const isPlainObject = (value: object): boolean => {
  const prototype = Object.getPrototypeOf(value) as unknown
  return prototype === Object.prototype || prototype === null
}

/**
 * Paths (`campo`, `lista[0]`, `objeto.clave`) of the strings and keys in `value` that hold a NUL,
 * walked without recursion: a deeply nested body is the body validator's to refuse (MAX_DEPTH),
 * not a stack overflow here. Only parsed JSON is walked: an evidence file's body (D43) is the
 * request's stream itself, whose object graph (socket, server...) is cyclic and was walked forever,
 * every other request of the process waiting and its memory growing without bound.
 */
function nulPaths(value: unknown): string[] {
  const out: string[] = []
  const stack: Array<[unknown, string]> = [[value, '']]
  while (stack.length > 0 && out.length < 10) {
    const [current, path] = stack.pop() as [unknown, string]
    if (typeof current === 'string') {
      if (current.includes(NUL)) out.push(path)
    } else if (Array.isArray(current)) {
      current.forEach((item, i) => stack.push([item, `${path}[${i}]`]))
    } else if (current !== null && typeof current === 'object' && isPlainObject(current)) {
      for (const [key, item] of Object.entries(current)) {
        const at = path === '' ? key : `${path}.${key}`
        if (key.includes(NUL)) out.push(at)
        else stack.push([item, at])
      }
    }
  }
  return out.sort()
}

function urlNulFields(request: FastifyRequest): string[] {
  if (!/%00/i.test(request.url)) return []
  const [path = '', query = ''] = request.url.split('?', 2)
  const fields = /%00/i.test(path) ? ['ruta'] : []
  for (const [key, value] of new URLSearchParams(query))
    if (key.includes(NUL) || value.includes(NUL)) fields.push(key.replaceAll(NUL, ''))
  return fields
}

async function nulGuard(app: FastifyInstance): Promise<void> {
  app.addHook('onRequest', (request, _reply, done) => {
    const fields = urlNulFields(request)
    if (fields.length > 0) throw validationFailed(fields.map(detail))
    done()
  })
  app.addHook('preValidation', (request, _reply, done) => {
    const fields = nulPaths(request.body)
    if (fields.length > 0) throw validationFailed(fields.map((f) => detail(f === '' ? 'cuerpo' : f)))
    done()
  })
}

export default fp(nulGuard, { name: 'records-nul-guard' })
