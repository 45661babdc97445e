// The last validated modules.yaml (D39), kept in DATA_DIR so that a start with the same file and the
// same program skips parsing and checking it again (YAML with positions, the
// schema compile and the rules were a third of a start). Validation is a pure function of the
// text and the program, so its answer for the same pair is the same; `records validate` and any
// change of either always validate in full.
//
// The file is signed with the service's JWT secret (HMAC-SHA256): one edited by hand, copied
// from another installation or damaged is ignored, and the start validates as if it were absent.
//
// Pure: load.ts reads and writes the file (config/ touches the disk there only).
import { createHash, createHmac, timingSafeEqual } from 'node:crypto'
import { isDeepStrictEqual } from 'node:util'
import type { ModulesConfig } from './types.js'

export interface ValidatedCache {
  /** The folder of the one cache file (DATA_DIR, 0700). */
  readonly dir: string
  /** Changes with every build of the running program (the bundle's size and modification time). */
  readonly programId: string
  /** The key of the file's signature. */
  readonly secret: string
}

export const VALIDATED_CACHE_FILE = '.modules-validado.json'

interface CacheFile {
  readonly key: string
  readonly config: string
  readonly mac: string
}

const keyOf = (cache: ValidatedCache, text: string): string =>
  `${createHash('sha256').update(text).digest('hex')}:${cache.programId}`
const macOf = (cache: ValidatedCache, key: string, config: string): Buffer =>
  createHmac('sha256', cache.secret).update(`${key}\n${config}`).digest()

/** The configuration validated for exactly this text by this program, if the file's `stored` text holds it. */
export function cachedConfig(
  cache: ValidatedCache,
  text: string,
  stored: string | undefined,
): ModulesConfig | undefined {
  let parsed: Partial<CacheFile>
  try {
    parsed = JSON.parse(stored ?? '') as Partial<CacheFile>
  } catch {
    return undefined // absent or not JSON: validate
  }
  const key = keyOf(cache, text)
  if (parsed.key !== key || typeof parsed.config !== 'string' || typeof parsed.mac !== 'string') return undefined
  const mac = Buffer.from(parsed.mac, 'hex')
  const expected = macOf(cache, key, parsed.config)
  if (mac.length !== expected.length || !timingSafeEqual(mac, expected)) return undefined
  return JSON.parse(parsed.config) as ModulesConfig
}

/** The file's text that keeps `config` as the validation of `text`; undefined for what JSON cannot carry. */
export function cacheFileText(cache: ValidatedCache, text: string, config: ModulesConfig): string | undefined {
  const json = JSON.stringify(config)
  // Plain data only: what cannot come back from JSON unchanged is not kept.
  if (!isDeepStrictEqual(JSON.parse(json), config)) return undefined
  const key = keyOf(cache, text)
  const file: CacheFile = { key, config: json, mac: macOf(cache, key, json).toString('hex') }
  return JSON.stringify(file)
}
