// Module hooks of the test processes (register.mjs): a TypeScript source is transpiled by
// esbuild, the project's bundler, in about a millisecond; tap's own ts-node loader took about
// 2 s of CPU for each test process that imports the service (TypeScript's compiler is loaded
// and run file by file). Transpiling only: `npm run typecheck` checks the types. The output is
// what `tsc` emits for tsconfig.json (ES modules, verbatimModuleSyntax, no downleveling), with
// an inline source map, so stack traces and tap's coverage name the .ts lines.
import { existsSync, readFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { transform } from 'esbuild'

const tsconfigRaw = {
  compilerOptions: JSON.parse(readFileSync(new URL('../../tsconfig.json', import.meta.url), 'utf8')).compilerOptions,
}
const target = `node${process.versions.node}`

/** NodeNext: a relative `./x.js` in a source names `./x.ts` (as ts-node resolved it). */
export async function resolve(specifier, context, next) {
  try {
    return await next(specifier, context)
  } catch (error) {
    if (error?.code === 'ERR_MODULE_NOT_FOUND' && /^\.{1,2}\/.*\.js$/.test(specifier) && context.parentURL) {
      const url = new URL(`${specifier.slice(0, -3)}.ts`, context.parentURL)
      if (existsSync(fileURLToPath(url))) return { url: url.href, format: 'module', shortCircuit: true }
    }
    throw error
  }
}

export async function load(url, context, next) {
  if (!url.startsWith('file:') || !/\.m?ts$/.test(new URL(url).pathname)) return next(url, context)
  const path = fileURLToPath(url)
  const { code } = await transform(await readFile(path, 'utf8'), {
    loader: 'ts',
    format: 'esm',
    target,
    sourcemap: 'inline',
    sourcefile: path,
    tsconfigRaw,
  })
  return { format: 'module', source: code, shortCircuit: true }
}
