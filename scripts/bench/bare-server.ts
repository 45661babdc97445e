// The bare stack the service is measured against: a minimal Fastify server that
// does only what no records service can skip. Each route verifies the JWT; then
//   GET  /bare/denuncias/:id  reads one row and decrypts its three values;
//   GET  /bare/denuncias      reads one page and its count, decrypting every encrypted value;
//   POST /bare/denuncias      encrypts three values and inserts one row (its own file or table);
//   POST /bare/auth/login     checks a bcrypt hash and signs a token.
//   GET  /bare/settings       (for the report, not measured) its connections' durability settings.
// No permissions, validation, audit, hashes or rate limits. Beside them, the same-work routes:
//   GET  /bare/same/denuncias/:id  the GET above plus what the service owes on every read of
//                                  personal data (scripts/bench/same-work.ts);
//   GET  /bare/same/denuncias      S2f's page of some plain fields with the metadata, the same way.
// Reads and writes go through better-sqlite3 or a `pg` Pool (scripts/bench/bare-store.ts). Run
// as a child of scripts/bench.ts: BENCH_DB and BENCH_BARE_DB (SQLite) or BENCH_DATABASE_URL and
// BENCH_POOL_SIZE (PostgreSQL), BENCH_JWT_SECRET, BENCH_KEY (base64) and PORT in the environment.
import { createCipheriv, createDecipheriv, randomBytes, randomUUID } from 'node:crypto'
import fastifyJwt from '@fastify/jwt'
import bcrypt from 'bcryptjs'
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify'
import { keyIdOf } from '../../src/db/crypto.js'
import { isColumnName, openBareStore, type CallerState, type Row } from './bare-store.js'
import { ANSWER_HEADERS, createConsultationLog, createRateLimits, newRequestId, RECORD_META } from './same-work.js'

const env = (name: string): string => {
  const value = process.env[name]
  if (value === undefined || value === '') throw new Error(`${name} is required`)
  return value
}
const key = Buffer.from(env('BENCH_KEY'), 'base64')
const keyId = keyIdOf(key)
const ENCRYPTED = ['denunciante_dni', 'denunciante_telefono', 'denunciante_domicilio'] as const

function decrypt(stored: string, context: string, under: Buffer | undefined): string {
  if (under === undefined) throw new Error(`${context}: no key for the value`)
  const [, , iv = '', tag = '', body = ''] = stored.split('.')
  const decipher = createDecipheriv('aes-256-gcm', under, Buffer.from(iv, 'base64url'))
  decipher.setAAD(Buffer.from(context))
  decipher.setAuthTag(Buffer.from(tag, 'base64url'))
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8')
}
function encrypt(plaintext: string, context: string): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  cipher.setAAD(Buffer.from(context))
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
  return [
    'v1',
    keyId,
    iv.toString('base64url'),
    cipher.getAuthTag().toString('base64url'),
    body.toString('base64url'),
  ].join('.')
}
const store = await openBareStore(env, (name) => process.env[name] || undefined)

// D41: values under a record's own data key (`r1.<key id>.`): the key is read once, unwrapped by
// the service key and kept, as the service does; one query for the keys a page lacks.
const recordKeys = new Map<string, Buffer>()
const keyIdOfValue = (stored: string): string | undefined =>
  stored.startsWith('r1.') ? stored.split('.', 2)[1] : undefined
async function loadRecordKeys(rows: readonly Row[]): Promise<void> {
  const missing = new Set<string>()
  for (const row of rows)
    for (const name of ENCRYPTED) {
      const id = typeof row[name] === 'string' ? keyIdOfValue(row[name] as string) : undefined
      if (id !== undefined && !recordKeys.has(id)) missing.add(id)
    }
  for (const k of await store.recordKeys([...missing])) {
    // A pooled key (SQLite, no record in its row) is wrapped naming its module and id; one made for
    // its record names the record too (src/db/keys/record-keys.ts).
    const context =
      k['record_id'] === ''
        ? `record-key-pool:${String(k['module'])}:${String(k['key_id'])}`
        : `record-key:${String(k['module'])}:${String(k['record_id'])}:${String(k['key_id'])}`
    recordKeys.set(String(k['key_id']), Buffer.from(decrypt(String(k['wrapped']), context, key), 'base64'))
  }
}
async function decryptRows(rows: Row[]): Promise<Row[]> {
  await loadRecordKeys(rows)
  for (const row of rows)
    for (const name of ENCRYPTED) {
      const raw = row[name]
      if (typeof raw !== 'string') continue
      const id = keyIdOfValue(raw)
      row[name] = decrypt(raw, `denuncias:${String(row['_id'])}`, id === undefined ? key : recordKeys.get(id))
    }
  return rows
}

const app = Fastify({ logger: false })
await app.register(fastifyJwt, { secret: env('BENCH_JWT_SECRET'), sign: { expiresIn: '7d' } })
const verify = (request: FastifyRequest) => request.jwtVerify()
// The same-work GET verifies as the service does: fast-jwt's cache of verified tokens.
await app.register(fastifyJwt, { secret: env('BENCH_JWT_SECRET'), namespace: 'same', verify: { cache: true } })
interface SameClaims {
  readonly sub: string
  readonly jti: string
  /** The account's session version when the token was issued (absent: 0). */
  readonly sv?: number
}
const sameVerifier = (app.jwt as unknown as Record<string, { verify(token: string): SameClaims }>)['same'] as {
  verify(token: string): SameClaims
}
const limits = createRateLimits(
  Number(process.env['BENCH_IP_PER_MINUTE'] ?? 1e9),
  Number(process.env['BENCH_TOKEN_PER_HOUR'] ?? 1e9),
)
const consultations = createConsultationLog((entries) => store.appendConsultations(entries))
/** The fields a consultation entry names: the module's columns but the metadata, read once from a row. */
let shown: readonly string[] | undefined
const shownFields = (row: Row): readonly string[] =>
  (shown ??= Object.keys(row).filter((column) => !column.startsWith('_')))
app.get('/bare/health', async () => ({ success: true }))
// D45: its durability settings as its own connections answer them (the bench prints them).
app.get('/bare/settings', async () => store.settings())

app.get<{ Params: { id: string } }>('/bare/denuncias/:id', async (request, reply) => {
  await verify(request)
  const row = await store.getOne(request.params.id)
  if (row === undefined) return reply.code(404).send({ success: false })
  return { success: true, data: (await decryptRows([row]))[0] }
})

/**
 * What every same-work answer does first: the request id and the answer's headers, the rate
 * limits, the token. The claims, or undefined once the 429 or 401 is sent.
 */
function sameRequest(
  request: FastifyRequest,
  reply: FastifyReply,
): { claims: SameClaims; requestId: string } | undefined {
  const requestId = newRequestId()
  void reply.headers(ANSWER_HEADERS).header('x-request-id', requestId)
  const header = request.headers.authorization
  const token = header?.startsWith('Bearer ') === true ? header.slice(7) : ''
  const limited = limits(request.ip, token)
  if (limited.headers === undefined) return void reply.code(429).send({ success: false })
  void reply.headers(limited.headers)
  try {
    return { claims: sameVerifier.verify(token), requestId }
  } catch {
    return void reply.code(401).send({ success: false })
  }
}

/**
 * D20, as the service checks it: a live, active account, the token not revoked, and no password
 * change or disable since it was issued (the session version).
 */
const callerHolds = (caller: CallerState | undefined, claims: SameClaims): boolean =>
  caller !== undefined && caller.active && !caller.revoked && (claims.sv ?? 0) === caller.sessionVersion

app.get<{ Params: { id: string } }>('/bare/same/denuncias/:id', async (request, reply) => {
  const asked = sameRequest(request, reply)
  if (asked === undefined) return reply
  const { claims, requestId } = asked
  const { caller, row } = await store.getWithCaller(request.params.id, claims.sub, claims.jti)
  if (!callerHolds(caller, claims)) return reply.code(401).send({ success: false })
  if (row === undefined) return reply.code(404).send({ success: false })
  const [record] = await decryptRows([row])
  // Art. 25: who read which record, when, from where, which fields; chained, in batches.
  consultations.record({
    at: new Date().toISOString(),
    userId: claims.sub,
    module: 'denuncias',
    recordId: request.params.id,
    version: Number(row['_version']),
    fields: shownFields(row),
    address: request.ip,
    requestId,
  })
  return { success: true, data: record }
})

// S2f's request: a page of the plain fields a list screen shows, each record with the metadata
// the service returns; nothing to decrypt. One consultation entry for the page, naming its ids.
app.get<{ Querystring: Record<string, string> }>('/bare/same/denuncias', async (request, reply) => {
  const asked = sameRequest(request, reply)
  if (asked === undefined) return reply
  const { claims, requestId } = asked
  const limit = Number(request.query['limit'] ?? 100)
  const offset = Number(request.query['offset'] ?? 0)
  const fields = String(request.query['fields'] ?? '')
    .split(',')
    .filter((f) => f !== '')
  // As the service bounds a page (limit 1 to 100); a name that is no column of the table is SQLite's to refuse.
  const pageAsked = Number.isInteger(limit) && limit >= 1 && limit <= 100 && Number.isInteger(offset) && offset >= 0
  if (!pageAsked || !fields.every(isColumnName)) return reply.code(400).send({ success: false })
  const { caller, rows, total } = await store.pageWithCaller(
    [...RECORD_META, ...fields],
    limit,
    offset,
    claims.sub,
    claims.jti,
  )
  if (!callerHolds(caller, claims) || rows === undefined) return reply.code(401).send({ success: false })
  consultations.record({
    at: new Date().toISOString(),
    userId: claims.sub,
    module: 'denuncias',
    // The service keeps a list's ids in their own column; here they fill the record's, as JSON.
    recordId: JSON.stringify(rows.map((r) => r['_id'])),
    version: null,
    fields,
    address: request.ip,
    requestId,
  })
  return { success: true, data: { records: rows, total, limit, offset } }
})

app.get<{ Querystring: Record<string, string> }>('/bare/denuncias', async (request) => {
  await verify(request)
  const limit = Number(request.query['limit'] ?? 100)
  const offset = Number(request.query['offset'] ?? 0)
  const { estado, prioridad } = request.query
  const { rows, total } = await store.page(
    limit,
    offset,
    estado !== undefined && prioridad !== undefined ? { estado, prioridad } : undefined,
  )
  return { success: true, data: { records: await decryptRows(rows), total, limit, offset } }
})

app.post<{ Body: Row }>('/bare/denuncias', async (request, reply) => {
  await verify(request)
  const body = request.body
  const id = randomUUID()
  const sealed = ENCRYPTED.map((name) =>
    typeof body[name] === 'string' ? encrypt(body[name] as string, `denuncias:${id}`) : null,
  )
  await store.insert(id, JSON.stringify(body), sealed)
  return reply.code(201).send({ success: true, data: { _id: id, ...body } })
})

app.post<{ Body: { username: string; password: string } }>('/bare/auth/login', async (request, reply) => {
  const found = await store.account(request.body.username)
  if (found === undefined || !(await bcrypt.compare(request.body.password, found.password)))
    return reply.code(401).send({ success: false })
  return { success: true, data: { token: app.jwt.sign({ sub: found._id, jti: randomUUID() }) } }
})

const address = await app.listen({ port: Number(env('PORT')), host: '127.0.0.1' })
console.log(`listening ${address}`)
process.once(
  'SIGTERM',
  () =>
    void app
      .close()
      .then(() => consultations.flush())
      .then(() => store.close())
      .catch((error: unknown) => console.error(error))
      .finally(() => process.exit(0)),
)
