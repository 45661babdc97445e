// `records serve`: the service itself, what `npm start` runs.
import { statSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { loadBundle } from '../load-bundle.js'
import type { Command } from '../command.js'

const serveCommand: Command = {
  name: 'serve',
  summary: 'Arranca el servicio HTTP (lo que ejecuta npm start)',
  help: `
Uso: records serve

Arranca el servicio con la configuración del entorno y de .env (PORT, HOST, DATA_DIR,
MODULES_FILE, DATABASE_URL, RECORDS_ENCRYPTION_KEY...): carga y comprueba modules.yaml,
aplica los cambios de esquema seguros y escucha. Se detiene limpiamente con SIGTERM o SIGINT.
Si modules.yaml pide cambios que reescriben o quitan datos no arranca: el motivo dice qué
aplicar, records migrate o records migrate --allow-data-loss si hay registros afectados.

Salida: 1 si no puede arrancar (con el motivo); 0 tras una parada ordenada.`,
  options: {},
  positionals: { min: 0, max: 0 },
  async run() {
    // Loaded on use: Fastify and its plugins would slow every other subcommand's start.
    const bundle = currentBundle()
    if (bundle === undefined) await (await import('../../app/serve.js')).serve()
    else {
      const loaded = loadBundle(bundle.file)
      await (loaded.exports as Service).serve({ programId: bundle.programId })
      loaded.saveCache() // listening: what the start compiled is in the cache for the next one
    }
    // Keeps running until a signal stops it (serve() exits the process then).
    return new Promise<number>(() => undefined)
  },
}

/**
 * The service as one file (scripts/bundle.mjs, about half the start's CPU; compiled through V8's
 * code cache, load-bundle.ts) when the build made one at least as new as the compiled sources;
 * else the compiled modules (the tests' sources, a `tsc` run alone), which validate modules.yaml
 * in full at every start.
 */
function currentBundle(): { file: string; programId: string } | undefined {
  const bundle = fileURLToPath(new URL('../../app/serve.bundle.cjs', import.meta.url))
  const bundled = statSync(bundle, { throwIfNoEntry: false })
  const compiled = statSync(new URL('../../app/serve.js', import.meta.url), { throwIfNoEntry: false })?.mtimeMs
  if (bundled === undefined || compiled === undefined || bundled.mtimeMs < compiled) return undefined
  // Any rebuild rewrites the bundle: its size and time name this build (EngineOptions.programId).
  return { file: bundle, programId: `${bundled.size}:${bundled.mtimeMs}` }
}
type Service = typeof import('../../app/serve.js')

export const commands = [serveCommand]
