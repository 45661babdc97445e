// Loads the one-file service (dist/src/app/serve.bundle.cjs, scripts/bundle.mjs) with V8's code
// cache: the first start after a build compiles it and, once it listens,
// keeps the compiled code beside it (`serve.bundle.cjs.cache`); the next starts take it from
// there instead of compiling 1.8 MB of JavaScript again. V8 checks the cache against the source
// and its own version and flags and rejects one that does not fit; the start then compiles as
// if there were none and writes a fresh one. Only compiled code is kept, no data.
import { readFileSync, renameSync, writeFileSync } from 'node:fs'
import { createRequire, Module } from 'node:module'
import { dirname } from 'node:path'
import { Script } from 'node:vm'

export interface LoadedBundle {
  readonly exports: Record<string, unknown>
  /** Whether this start found a cache V8 accepted. */
  readonly cached: boolean
  /** Keeps the code compiled so far for the next start, unless this start used a good cache. */
  saveCache(): void
}

/** The bundle at `file` (a path), run as CommonJS in this process. */
export function loadBundle(file: string): LoadedBundle {
  const cacheFile = `${file}.cache`
  let cachedData: Buffer | undefined
  try {
    cachedData = readFileSync(cacheFile)
  } catch {
    cachedData = undefined // none yet, or unreadable: compile
  }
  const wrap = (Module as unknown as { wrap(source: string): string }).wrap
  // The bundle is ASCII (scripts/bundle.mjs escapes every other character): read as latin1, its
  // text becomes a one-byte string with no UTF-8 decoding of 1.7 MB.
  const script = new Script(wrap(readFileSync(file, 'latin1')), {
    filename: file,
    ...(cachedData === undefined ? {} : { cachedData }),
  })
  const run = script.runInThisContext() as (...args: unknown[]) => void
  const module = { exports: {} as Record<string, unknown> }
  run.call(module.exports, module.exports, createRequire(file), module, file, dirname(file))
  const cached = cachedData !== undefined && script.cachedDataRejected === false
  return {
    exports: module.exports,
    cached,
    saveCache() {
      if (cached) return
      const temporary = `${cacheFile}.${process.pid}.tmp`
      try {
        writeFileSync(temporary, script.createCachedData())
        renameSync(temporary, cacheFile) // whole or not at all, also with two instances starting
      } catch {
        // A read-only installation: every start compiles, as without the cache.
      }
    },
  }
}
