// Where the console's built files are (D44, D46): dist/console/, written by `npm run build`
// (scripts/build-console.mjs). From src/app/ (tests) or dist/src/app/ (npm start, its bundle).
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** The folder holding the built console's index.html; undefined when it was never built. */
export function consoleDir(): string | undefined {
  for (const candidate of ['../../dist/console/', '../../console/']) {
    const dir = new URL(candidate, import.meta.url)
    if (existsSync(new URL('index.html', dir))) return fileURLToPath(dir)
  }
  return undefined
}
