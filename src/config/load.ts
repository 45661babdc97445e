// Reads modules.yaml from disk; everything else about it is pure (validate.ts).
import { readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { configInvalid, installationIncomplete } from '../errors.js'
import type { ModulesConfig } from './types.js'
import { validateModulesSource } from './validate.js'
import { cacheFileText, cachedConfig, VALIDATED_CACHE_FILE, type ValidatedCache } from './validated-cache.js'

/**
 * Loads and validates a modules file; throws an OperatorError (CONFIG_INVALID) listing every
 * problem. With `cache`, a file this program validated before is taken from it unchanged.
 */
export function loadModulesConfig(file: string, cache?: ValidatedCache): ModulesConfig {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'el fichero no existe' : 'no se puede leer'
    throw configInvalid([
      { file, line: 1, column: 1, message: `No se puede cargar la definición de módulos: ${reason}` },
    ])
  }
  const reused = cache === undefined ? undefined : readValidatedCache(cache, text)
  if (reused !== undefined) return reused
  const result = validateModulesSource(text, file)
  if (!result.ok) throw configInvalid(result.problems)
  if (cache !== undefined) writeValidatedCache(cache, text, result.config)
  return result.config
}

/** The validation of `text` kept in `cache.dir` (D39), if there is one that fits. */
export function readValidatedCache(cache: ValidatedCache, text: string): ModulesConfig | undefined {
  let stored: string | undefined
  try {
    stored = readFileSync(join(cache.dir, VALIDATED_CACHE_FILE), 'utf8')
  } catch {
    stored = undefined
  }
  return cachedConfig(cache, text, stored)
}

/** Keeps `config` as the validation of `text` (0600); a failure to write only costs the next start its time. */
export function writeValidatedCache(cache: ValidatedCache, text: string, config: ModulesConfig): void {
  const contents = cacheFileText(cache, text, config)
  if (contents === undefined) return
  const path = join(cache.dir, VALIDATED_CACHE_FILE)
  const temporary = `${path}.${process.pid}.tmp`
  try {
    writeFileSync(temporary, contents, { mode: 0o600 })
    renameSync(temporary, path) // whole or not at all, also with two instances starting at once
  } catch {
    // A read-only DATA_DIR: every start validates in full, as before.
  }
}

/**
 * The shipped list of common passwords, read on its first use (a password set or changed), not
 * at every start: 10,000 lines are a few milliseconds a start with no password to check does not need.
 */
export function lazyCommonPasswords(): { has(password: string): boolean } {
  let loaded: ReadonlySet<string> | undefined
  return { has: (password) => (loaded ??= loadCommonPasswords()).has(password) }
}

/** The shipped list of common passwords (assets/common-passwords.txt), from src/ or dist/src/. */
export function loadCommonPasswords(): ReadonlySet<string> {
  for (const candidate of ['../../assets/common-passwords.txt', '../../../assets/common-passwords.txt']) {
    let text: string
    try {
      text = readFileSync(new URL(candidate, import.meta.url), 'utf8')
    } catch {
      continue
    }
    return new Set(
      text
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line !== '' && !line.startsWith('#')),
    )
  }
  throw installationIncomplete('assets/common-passwords.txt', 'la lista de contraseñas comunes que se rechazan')
}
