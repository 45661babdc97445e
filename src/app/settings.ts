// Settings from the environment and a `.env` file (D1); secrets generated once into DATA_DIR.
import { randomBytes } from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { parseKey } from '../db/crypto.js'
import { isOperatorError, settingInvalid, settingsInvalid } from '../errors.js'
import type { LoginProtectionSettings } from '../http/login-throttle.js'
import { parseTrustProxy, type TrustProxy } from '../http/trust-proxy.js'

export interface Settings {
  readonly port: number
  readonly host: string
  readonly basePath: string
  readonly dataDir: string
  readonly databaseUrl: string
  /** PostgreSQL connections per instance. */
  readonly databasePoolSize: number
  /** Shared rate-limit counters for many instances; per-process counters without it. */
  readonly redisUrl: string | undefined
  readonly redisKeyPrefix: string
  readonly modulesFile: string
  readonly jwtSecret: string
  /** Configured first key first; the rest only decrypt (rotation). */
  readonly encryptionKeys: readonly Buffer[]
  /** DATA_DIR/encryption.key when the keys come from it: read again on a rotation's signal. */
  readonly encryptionKeyFile: string | undefined
  /** The Ed25519 key `records audit checkpoint` signs with; created on first use. */
  readonly auditCheckpointKeyFile: string
  /** Where a retention run that erases writes its signed acta de eliminación (D41). */
  readonly retentionActaDir: string
  /** How often a running instance reports its keys in `_instances`. */
  readonly heartbeatMs: number
  readonly adminUsername: string
  readonly adminPassword: string | undefined
  /** D24, and the docs page's own looser per-address limit. */
  readonly rateLimits: { readonly ipPerMinute: number; readonly tokenPerHour: number; readonly docsPerMinute: number }
  /** Proxies trusted to name the client's address. */
  readonly trustProxy: TrustProxy
  /** CORS_ORIGINS: browser origins allowed to call the API; empty (the default) sends no CORS headers. */
  readonly corsOrigins: readonly string[]
  /**
   * Slow clients: a whole request must arrive within `requestMs`; a socket idle for `connectionMs` (keep-
   * alive included) closes.
   */
  readonly timeouts: { readonly requestMs: number; readonly connectionMs: number }
  /** Longest accepted query string in characters. */
  readonly maxQueryLength: number
  /** Brute-force slowing per username and address, with a per-username alert. */
  readonly loginProtection: LoginProtectionSettings
  /** Open live-feed streams allowed per user and per instance. */
  readonly eventStreams: { readonly perUser: number; readonly perInstance: number; readonly maxReplay: number }
  readonly logLevel: string
  /** LOG_FORMAT: readable lines or JSON; `auto` (unset) is readable on a terminal only. */
  readonly logFormat: 'pretty' | 'json' | 'auto'
  /** Secrets that were generated because none was configured: warn, never print them. */
  readonly generated: readonly string[]
  /** The files this load created for them: a refused start removes them (refused-start.ts). */
  readonly generatedFiles: readonly string[]
  /** The passkeys' relying party (D42): its id (a domain) and the one origin pages call from. */
  readonly webauthn: WebAuthnSettings
  /** CONSOLE_ENABLED: the browser console at {BASE_PATH}/consola/ (D44, D46); false: 404. */
  readonly consoleEnabled: boolean
}

export interface WebAuthnSettings {
  readonly rpId: string
  readonly origin: string
}

type Env = Readonly<Record<string, string | undefined>>

/**
 * Reads settings without stopping at the first bad one: each problem is noted (a default stands
 * in meanwhile) and `check` then refuses the start with all of them, as modules.yaml's are listed.
 */
function settingReader(env: Env) {
  const problems: string[] = []
  /** `parse()`, or `fallback` with its SETTING_INVALID problem noted; any other error is thrown. */
  function read<T>(parse: () => T, fallback: T): T {
    try {
      return parse()
    } catch (error) {
      if (!isOperatorError(error) || error.code !== 'SETTING_INVALID') throw error
      problems.push(error.message)
      return fallback
    }
  }
  function integer(name: string, fallback: number, min = 1): number {
    const raw = env[name]
    if (raw === undefined || raw === '') return fallback
    if (/^\d+$/.test(raw) && Number(raw) >= min) return Number(raw)
    problems.push(`${name} debe ser un número entero >= ${min} (recibido '${raw}')`)
    return fallback
  }
  function check(): void {
    if (problems.length > 0) throw settingsInvalid(problems)
  }
  return { read, integer, check }
}

/** `https://a.example, https://b.example` or `*`; each origin is scheme://host[:port], no path. */
function corsOrigins(raw: string | undefined): string[] {
  const origins = (raw ?? '')
    .split(',')
    .map((o) => o.trim().replace(/\/+$/, ''))
    .filter((o) => o !== '')
  const bad = origins.filter((o) => o !== '*' && !/^https?:\/\/[^/\s]+$/.test(o))
  if (bad.length > 0)
    throw settingInvalid(`CORS_ORIGINS: origen no válido '${bad.join("', '")}' (use https://host[:puerto] o *)`)
  return origins
}

const LOCAL_HOSTS = ['127.0.0.1', '0.0.0.0', '::', '::1', 'localhost', '']

/**
 * WEBAUTHN_RP_ID and WEBAUTHN_ORIGIN (D42). The RP id is a domain name (never an address: browsers
 * refuse those), by default HOST when it is a name and `localhost` otherwise; the origin is
 * `https://` that domain or a subdomain of it (plain `http://` only for localhost), by default
 * `https://<rp id>`, or `http://localhost:<PORT>` for development.
 */
function webauthnOf(env: Env, host: string, port: number): WebAuthnSettings {
  const named = !LOCAL_HOSTS.includes(host) && !/^[\d.]+$|:/.test(host)
  const rpId = (env['WEBAUTHN_RP_ID'] || (named ? host : 'localhost')).toLowerCase()
  if (
    !/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/.test(rpId) ||
    /^[\d.]+$/.test(rpId)
  )
    throw settingInvalid(`WEBAUTHN_RP_ID debe ser un nombre de dominio sin esquema ni puerto (recibido '${rpId}')`)
  const local = rpId === 'localhost'
  const origin = (env['WEBAUTHN_ORIGIN'] || (local ? `http://localhost:${port}` : `https://${rpId}`)).replace(
    /\/+$/,
    '',
  )
  const match = /^(https?):\/\/([^/:\s]+)(:\d+)?$/.exec(origin)
  const originHost = match?.[2]?.toLowerCase()
  if (match === null || originHost === undefined || (originHost !== rpId && !originHost.endsWith(`.${rpId}`)))
    throw settingInvalid(
      `WEBAUTHN_ORIGIN debe ser scheme://host[:puerto] con host ${rpId} o un subdominio suyo (recibido '${origin}')`,
    )
  if (match[1] === 'http' && originHost !== 'localhost')
    throw settingInvalid(`WEBAUTHN_ORIGIN debe usar https fuera de localhost (recibido '${origin}')`)
  return { rpId, origin }
}

/** CONSOLE_ENABLED: true (the default) or false. */
function consoleEnabledOf(raw: string | undefined): boolean {
  if (raw === undefined || raw === '' || raw === 'true') return true
  if (raw === 'false') return false
  throw settingInvalid(`CONSOLE_ENABLED admite true o false (recibido '${raw}')`)
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']

/** pino's levels; anything else would fail the logger's creation with pino's own words. */
function logLevelOf(raw: string | undefined): string {
  if (raw === undefined || raw === '') return 'info'
  if (LOG_LEVELS.includes(raw)) return raw
  throw settingInvalid(`LOG_LEVEL admite ${LOG_LEVELS.join(', ')} (recibido '${raw}')`)
}

function logFormatOf(raw: string | undefined): Settings['logFormat'] {
  if (raw === undefined || raw === '') return 'auto'
  if (raw === 'pretty' || raw === 'json') return raw
  throw settingInvalid(`LOG_FORMAT admite pretty o json (recibido '${raw}')`)
}

/** Reads `file` or creates it with a fresh secret, readable by the owner only (an older file too). */
function secretFile(file: string, make: () => string, created: string[]): string {
  if (existsSync(file)) {
    try {
      chmodSync(file, 0o600)
    } catch (error) {
      // A secret another user owns (root-managed, read-only) is theirs to protect.
      if ((error as NodeJS.ErrnoException).code !== 'EPERM') throw error
    }
    return readFileSync(file, 'utf8').trim()
  }
  writeFileSync(file, `${make()}\n`, { mode: 0o600, flag: 'wx' })
  created.push(file)
  return readFileSync(file, 'utf8').trim()
}

/**
 * JWT_SECRET and the encryption keys: from the environment, else from DATA_DIR's files, created
 * when missing. Called once every other setting is valid; a failure removes the files it created.
 */
function secretsOf(env: Env, dataDir: string) {
  const created: string[] = []
  const jwtFile = join(dataDir, 'jwt-secret')
  const keyFile = join(dataDir, 'encryption.key')
  try {
    const jwtSecret = env['JWT_SECRET'] || secretFile(jwtFile, () => randomBytes(48).toString('base64url'), created)
    checkJwtSecret(jwtSecret)
    const keyText = envKeyText(env) ?? secretFile(keyFile, () => randomBytes(32).toString('base64'), created)
    const generated = [
      ...(created.includes(jwtFile) ? ['JWT_SECRET'] : []),
      ...(created.includes(keyFile) ? ['RECORDS_ENCRYPTION_KEY'] : []),
    ]
    return { jwtSecret, encryptionKeys: parseKeyList(keyText), generated, generatedFiles: created }
  } catch (error) {
    for (const file of created) rmSync(file, { force: true })
    throw error
  }
}

const checkJwtSecret = (secret: string): void => {
  if (secret.length < 32) throw settingInvalid('JWT_SECRET debe tener al menos 32 caracteres')
}

/** RECORDS_ENCRYPTION_KEY and the old keys after it, when the environment gives them. */
const envKeyText = (env: Env): string | undefined =>
  env['RECORDS_ENCRYPTION_KEY']
    ? [env['RECORDS_ENCRYPTION_KEY'], ...(env['RECORDS_ENCRYPTION_OLD_KEYS'] ?? '').split(',')].join('\n')
    : undefined

/** Keys one per line (or comma-separated): the first encrypts once a rotation makes it active. */
export const parseKeyList = (text: string): Buffer[] =>
  text
    .split(/\s*[\n,]\s*/)
    .filter((k) => k !== '')
    .map((k, i) => parseKey(k, i === 0 ? 'RECORDS_ENCRYPTION_KEY' : `clave antigua ${i}`))

/** The configured keys now: the key file read again (it may have gained a key), or the fixed environment. */
export const currentEncryptionKeys = (settings: Settings): readonly Buffer[] =>
  settings.encryptionKeyFile === undefined
    ? settings.encryptionKeys
    : parseKeyList(readFileSync(settings.encryptionKeyFile, 'utf8'))

/** BASE_PATH normalized: `/api` by default, `/` for none, never a trailing slash (D1). */
export function basePathOf(env: Env = process.env): string {
  return `/${(env['BASE_PATH'] ?? '/api').replace(/^\/+|\/+$/g, '')}`.replace(/^\/$/, '/')
}

export function loadSettings(env: Env = process.env, cwd = process.cwd()): Settings {
  const dataDir = resolve(cwd, env['DATA_DIR'] || './data')
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  const basePath = basePathOf(env)
  const { read, integer, check } = settingReader(env)
  const settings = {
    port: integer('PORT', 3000, 0),
    host: env['HOST'] || '127.0.0.1',
    basePath,
    dataDir,
    databaseUrl: env['DATABASE_URL'] || `sqlite:${join(dataDir, 'records.db')}`,
    databasePoolSize: integer('DATABASE_POOL_SIZE', 10),
    redisUrl: env['REDIS_URL'] || undefined,
    redisKeyPrefix: env['REDIS_KEY_PREFIX'] || 'records:',
    modulesFile: resolve(cwd, env['MODULES_FILE'] || './modules.yaml'),
    encryptionKeyFile: env['RECORDS_ENCRYPTION_KEY'] ? undefined : join(dataDir, 'encryption.key'),
    auditCheckpointKeyFile: resolve(cwd, env['AUDIT_CHECKPOINT_KEY_FILE'] || join(dataDir, 'audit-checkpoint.key')),
    retentionActaDir: resolve(cwd, env['RETENTION_ACTA_DIR'] || join(dataDir, 'actas')),
    heartbeatMs: integer('INSTANCE_HEARTBEAT_SECONDS', 5) * 1000,
    eventStreams: {
      perUser: integer('EVENT_STREAMS_PER_USER', 5),
      perInstance: integer('EVENT_STREAMS_PER_INSTANCE', 1000),
      maxReplay: integer('EVENT_REPLAY_MAX_ENTRIES', 10_000),
    },
    adminUsername: env['ADMIN_USERNAME'] || 'admin',
    adminPassword: env['ADMIN_PASSWORD'] || undefined,
    rateLimits: {
      ipPerMinute: integer('RATE_LIMIT_IP_PER_MINUTE', 50),
      tokenPerHour: integer('RATE_LIMIT_TOKEN_PER_HOUR', 1000),
      docsPerMinute: integer('RATE_LIMIT_DOCS_PER_MINUTE', 300),
    },
    trustProxy: read(() => parseTrustProxy(env['TRUST_PROXY']), false),
    corsOrigins: read(() => corsOrigins(env['CORS_ORIGINS']), []),
    timeouts: {
      requestMs: integer('REQUEST_TIMEOUT_MS', 30_000),
      connectionMs: integer('CONNECTION_TIMEOUT_MS', 72_000),
    },
    maxQueryLength: integer('MAX_QUERY_LENGTH', 4096),
    loginProtection: {
      maxFailures: integer('LOGIN_MAX_FAILURES', 5),
      delaySeconds: integer('LOGIN_DELAY_SECONDS', 30),
      maxDelaySeconds: integer('LOGIN_MAX_DELAY_SECONDS', 900),
      alertFailures: integer('LOGIN_ALERT_FAILURES', 100),
      windowSeconds: integer('LOGIN_FAILURE_WINDOW_SECONDS', 86_400),
    },
    logLevel: read(() => logLevelOf(env['LOG_LEVEL']), 'info'),
    logFormat: read(() => logFormatOf(env['LOG_FORMAT']), 'auto'),
    consoleEnabled: read(() => consoleEnabledOf(env['CONSOLE_ENABLED']), true),
  }
  const webauthn = read(() => webauthnOf(env, settings.host, settings.port), { rpId: 'localhost', origin: '' })
  // Secrets the environment gives are checked with the rest; those of DATA_DIR's files after.
  if (env['JWT_SECRET']) read(() => checkJwtSecret(env['JWT_SECRET'] ?? ''), undefined)
  const keyText = envKeyText(env)
  if (keyText !== undefined) read(() => parseKeyList(keyText), [])
  check()
  // Last: a start refused by any other setting leaves no secret behind.
  return { ...settings, webauthn, ...secretsOf(env, dataDir) }
}

/** Loads `.env` from the working directory into process.env when there is one. */
export function loadDotEnv(cwd = process.cwd()): void {
  const file = join(cwd, '.env')
  if (existsSync(file)) process.loadEnvFile(file)
}
