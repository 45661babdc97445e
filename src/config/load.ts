// Reads modules.yaml from disk; everything else about it is pure (validate.ts).
import { readFileSync } from 'node:fs'
import { configInvalid } from '../errors.js'
import type { ModulesConfig } from './types.js'
import { validateModulesSource } from './validate.js'
import { cachedConfig, storeConfig, type ValidatedCache } from './validated-cache.js'

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
  const reused = cache === undefined ? undefined : cachedConfig(cache, text)
  if (reused !== undefined) return reused
  const result = validateModulesSource(text, file)
  if (!result.ok) throw configInvalid(result.problems)
  if (cache !== undefined) storeConfig(cache, text, result.config)
  return result.config
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
  throw new Error('No se encuentra assets/common-passwords.txt (la lista de contraseñas comunes que se rechazan)')
}
