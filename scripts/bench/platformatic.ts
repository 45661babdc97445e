// The peer a user would pick instead of the service: Platformatic DB, the
// config-driven REST generator, serving a denuncias table of the same columns and indexes. It
// does no encryption, revocation, permissions or audit; it verifies a JWT (Platformatic's own
// authorization with a shared secret) and maps the table to REST.
//
// Never a project dependency: the bench installs it once into a cache outside the repository
// (`~/.cache/municipal-records-bench/platformatic`, or $RECORDS_BENCH_CACHE/platformatic) with
// `npm install --prefix`. Offline, `preparePlatformatic` says why and the bench goes on without it.
//
// D45: it runs with the service's durability. Its SQLite file is created in WAL here, and a plugin
// of ours (platformatic-settings.ts) sets `synchronous = FULL` on its connection at start and
// answers GET /bench-settings with what its connections say; on PostgreSQL its database has
// `synchronous_commit = on` (database.ts) and the same plugin reads it on every pooled connection.
import { spawnSync } from 'node:child_process'
import BetterSqlite3 from 'better-sqlite3'
import pg from 'pg'
import { createHmac } from 'node:crypto'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { POOL_SIZE } from './database.js'
import { postgresSettings, sqliteSettings, type Durability } from './durability.js'
import type { LoadRequest } from './load.js'

/** The latest 2.x, which runs on Node 20 (3.x wants Node 22). */
export const PLATFORMATIC_VERSION = '2.61.0'
const ROLE = 'bench'

export interface PlatformaticPeer {
  /** `node <script> start` in `cwd` serves it. */
  readonly script: string
  readonly args: readonly string[]
  readonly cwd: string
  readonly env: Readonly<Record<string, string>>
  /** Answers 200 without a token once it serves (its OpenAPI document). */
  readonly readyPath: string
  /** A bearer token its authorization accepts (role `bench`: find and save denuncias). */
  readonly token: string
  /** Its connections' durability settings (GET, JSON), from our plugin: see `readPeerSettings`. */
  readonly settingsPath: string
  /** Where its table lives, for the bulk seed: a SQLite file or a PostgreSQL URL. */
  readonly connection:
    { readonly kind: 'sqlite'; readonly file: string } | { readonly kind: 'postgres'; readonly url: string }
}

/** The SQL migration of its table: the service's denuncias fields as plain columns, the same indexes. */
export function denunciasMigration(kind: 'sqlite' | 'postgres'): string {
  const id = kind === 'postgres' ? 'id BIGSERIAL PRIMARY KEY' : 'id INTEGER PRIMARY KEY'
  return `CREATE TABLE denuncias (
  ${id},
  denunciante_nombre TEXT NOT NULL,
  denunciante_dni TEXT,
  denunciante_telefono TEXT,
  denunciante_email TEXT,
  denunciante_domicilio TEXT,
  tipo TEXT NOT NULL,
  fecha_hechos TEXT NOT NULL,
  lugar_hechos TEXT NOT NULL,
  descripcion TEXT NOT NULL,
  testigos TEXT,
  estado TEXT NOT NULL DEFAULT 'pendiente',
  agente_asignado TEXT,
  prioridad TEXT NOT NULL DEFAULT 'media',
  adjuntos TEXT,
  observaciones TEXT
);
CREATE INDEX denuncias_tipo ON denuncias (tipo);
CREATE INDEX denuncias_estado ON denuncias (estado);
CREATE INDEX denuncias_prioridad ON denuncias (prioridad);
CREATE INDEX denuncias_agente_asignado ON denuncias (agente_asignado);
CREATE INDEX denuncias_estado_prioridad ON denuncias (estado, prioridad);
CREATE INDEX denuncias_agente_estado ON denuncias (agente_asignado, estado);
`
}

/** An HS256 JWT carrying Platformatic's role claim, signed with the shared secret. */
export function platformaticToken(secret: string): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url')
  const head = `${part({ alg: 'HS256', typ: 'JWT' })}.${part({
    sub: 'bench',
    'X-PLATFORMATIC-ROLE': ROLE,
    iat: Math.floor(Date.now() / 1000),
  })}`
  return `${head}.${createHmac('sha256', secret).update(head).digest('base64url')}`
}

export function platformaticCacheDir(): string {
  return join(
    process.env['RECORDS_BENCH_CACHE'] ?? join(homedir(), '.cache', 'municipal-records-bench'),
    'platformatic',
  )
}

/** Installs Platformatic DB into the cache on first use; the path of its CLI, or why not. */
export function installPlatformatic(log: (line: string) => void): { script: string } | { reason: string } {
  const prefix = platformaticCacheDir()
  const script = join(prefix, 'node_modules', '@platformatic', 'db', 'db.mjs')
  if (existsSync(script)) return { script }
  mkdirSync(prefix, { recursive: true })
  if (!existsSync(join(prefix, 'package.json')))
    writeFileSync(join(prefix, 'package.json'), '{ "name": "records-bench-platformatic", "private": true }\n')
  log(`installing @platformatic/db@${PLATFORMATIC_VERSION} into ${prefix} (first run only; a few minutes)`)
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
  const result = spawnSync(
    npm,
    ['install', '--prefix', prefix, '--no-audit', '--no-fund', `@platformatic/db@${PLATFORMATIC_VERSION}`],
    { encoding: 'utf8', timeout: 15 * 60_000 },
  )
  if (result.status !== 0 || !existsSync(script)) {
    const why = (result.stderr || result.error?.message || `npm exited with ${result.status}`).trim().split('\n')
    return { reason: `npm install @platformatic/db@${PLATFORMATIC_VERSION} failed: ${why.slice(-3).join(' / ')}` }
  }
  return { script }
}

/**
 * A Platformatic DB project in `dir` (config, migration applied at its start) on SQLite
 * (`dir/platformatic.sqlite`) or on the PostgreSQL database `postgresUrl`.
 */
export function preparePlatformatic(
  script: string,
  dir: string,
  jwtSecret: string,
  postgresUrl: string | undefined,
): PlatformaticPeer {
  const kind = postgresUrl === undefined ? 'sqlite' : 'postgres'
  mkdirSync(join(dir, 'migrations'), { recursive: true })
  writeFileSync(join(dir, 'migrations', '001.do.sql'), denunciasMigration(kind))
  const file = join(dir, 'platformatic.sqlite')
  // The file is created here in WAL, which SQLite keeps in the file: its migrations and every
  // later connection (the plugin's, the bulk seed's) find it so.
  if (kind === 'sqlite') {
    const created = new BetterSqlite3(file)
    created.pragma('journal_mode = WAL')
    created.close()
  }
  const config = {
    server: { hostname: '127.0.0.1', port: '{PLT_SERVER_PORT}', logger: { level: 'error' } },
    // poolSize: PostgreSQL's, the service's (Platformatic's default, said here); on SQLite it
    // holds one connection whatever this says.
    db: { connectionString: '{PLT_DATABASE_URL}', graphql: false, openapi: true, poolSize: POOL_SIZE },
    migrations: { dir: './migrations', autoApply: true },
    plugins: {
      paths: [{ path: join(import.meta.dirname, 'platformatic-settings.js'), options: { connections: POOL_SIZE } }],
    },
    authorization: {
      jwt: { secret: '{PLT_JWT_SECRET}' },
      rules: [{ role: ROLE, entity: 'denuncia', find: true, save: true, delete: false }],
    },
  }
  writeFileSync(join(dir, 'platformatic.db.json'), JSON.stringify(config, null, 2))
  return {
    script,
    args: ['start', '-c', join(dir, 'platformatic.db.json')],
    cwd: dir,
    env: { PLT_DATABASE_URL: postgresUrl ?? `sqlite://${file}`, PLT_JWT_SECRET: jwtSecret },
    readyPath: '/documentation/json',
    token: platformaticToken(jwtSecret),
    settingsPath: '/bench-settings',
    connection: postgresUrl === undefined ? { kind: 'sqlite', file } : { kind: 'postgres', url: postgresUrl },
  }
}

/** What the peer's connections answer now (its plugin's GET /bench-settings), in the report's terms. */
export async function readPeerSettings(peer: PlatformaticPeer, port: number): Promise<Durability> {
  const response = await fetch(`http://127.0.0.1:${port}${peer.settingsPath}`, {
    headers: { authorization: `Bearer ${peer.token}` },
  })
  if (response.status !== 200) throw new Error(`${peer.settingsPath}: ${response.status} ${await response.text()}`)
  const answer = (await response.json()) as { kind: string; connections: Record<string, unknown>[] }
  if (answer.kind === 'sqlite')
    return { connections: answer.connections.map((c) => sqliteSettings(c['journal_mode'], c['synchronous'])) }
  // One entry per backend: a pool that lent a connection twice counts it once.
  return {
    connections: [
      ...new Map(answer.connections.map((c) => [c['pid'], postgresSettings(c['synchronous_commit'])])).values(),
    ],
  }
}

/** A create body as the peer takes it: the same values, its camelCase names. */
export function peerBody(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(values).map(([k, v]) => [k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()), v]),
  )
}

/** The peer's form of the scenarios' requests (its routes, its query syntax). */
export const platformaticRequests = {
  get: (id: () => number): LoadRequest => ({ method: 'GET', path: () => `/denuncias/${id()}` }),
  list: (offset: () => number): LoadRequest => ({
    method: 'GET',
    path: () => `/denuncias/?limit=100&offset=${offset()}&totalCount=true`,
  }),
  /** The page with only `fields` (snake_case names; the peer's are camelCase). */
  listFields: (offset: () => number, fields: readonly string[]): LoadRequest => {
    const names = ['id', ...fields.map((f) => Object.keys(peerBody({ [f]: null }))[0])].join(',')
    return { method: 'GET', path: () => `/denuncias/?limit=100&offset=${offset()}&fields=${names}&totalCount=true` }
  },
  filtered: (filter: () => { estado: string; prioridad: string }): LoadRequest => ({
    method: 'GET',
    path: () => {
      const f = filter()
      return `/denuncias/?where.estado.eq=${f.estado}&where.prioridad.eq=${f.prioridad}&limit=100&totalCount=true`
    },
  }),
  create: (values: () => Record<string, unknown>): LoadRequest => ({
    method: 'POST',
    path: () => '/denuncias/',
    body: () => JSON.stringify(peerBody(values())),
  }),
}

/** The bulk seed of the peer: `count` rows of the seed's values straight into its table, in one transaction. */
export async function seedPlatformaticBulk(
  peer: PlatformaticPeer,
  count: number,
  valuesOf: (i: number) => Record<string, unknown>,
): Promise<void> {
  const columns = Object.keys(valuesOf(1))
  const text = (i: number) => {
    const values = valuesOf(i)
    return columns.map((c) => values[c] ?? null)
  }
  if (peer.connection.kind === 'sqlite') {
    const db = new BetterSqlite3(peer.connection.file)
    db.pragma('journal_mode = WAL')
    db.pragma('synchronous = FULL')
    db.pragma('busy_timeout = 5000')
    const insert = db.prepare(
      `insert into denuncias (${columns.join(', ')}) values (${columns.map(() => '?').join(', ')})`,
    )
    db.transaction(() => {
      for (let i = 1; i <= count; i++) insert.run(...text(i))
    })()
    db.close()
    return
  }
  const client = new pg.Client({ connectionString: peer.connection.url })
  await client.connect()
  try {
    await client.query('begin')
    const BATCH = 1000
    for (let start = 1; start <= count; start += BATCH) {
      const rows: unknown[] = []
      const tuples: string[] = []
      for (let i = start; i < Math.min(count + 1, start + BATCH); i++) {
        tuples.push(`(${columns.map((_, c) => `$${rows.length + c + 1}`).join(', ')})`)
        rows.push(...text(i))
      }
      await client.query(`insert into denuncias (${columns.join(', ')}) values ${tuples.join(', ')}`, rows)
    }
    await client.query('commit')
    await client.query('vacuum analyze denuncias')
  } finally {
    await client.end()
  }
}
