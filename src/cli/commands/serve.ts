// `records serve`: the service itself, what `npm start` runs.
import type { Command } from '../command.js'

const serveCommand: Command = {
  name: 'serve',
  summary: 'Arranca el servicio HTTP (lo que ejecuta npm start)',
  help: `
Uso: records serve

Arranca el servicio con la configuración del entorno y de .env (PORT, HOST, DATA_DIR,
MODULES_FILE, DATABASE_URL, RECORDS_ENCRYPTION_KEY...): carga y comprueba modules.yaml,
aplica los cambios de esquema seguros y escucha. Se detiene limpiamente con SIGTERM o SIGINT.
Si modules.yaml pide cambios que reescriben o quitan datos no arranca: use records migrate.

Salida: 1 si no puede arrancar (con el motivo); 0 tras una parada ordenada.`,
  options: {},
  positionals: { min: 0, max: 0 },
  async run() {
    // Loaded on use: Fastify and its plugins would slow every other subcommand's start.
    const { serve } = await import('../../app/serve.js')
    await serve()
    // Keeps running until a signal stops it (serve() exits the process then).
    return new Promise<number>(() => undefined)
  },
}

export const commands = [serveCommand]
