// The service's entry point as a plain script (`node dist/src/app/server.js`): `records serve`
// without the command line around it.
import { ConfigError } from '../errors.js'
import { MigrationRefused } from '../db/migrate/apply.js'
import { serve } from './serve.js'

serve().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof MigrationRefused) console.error(error.message)
  else console.error(`No se pudo iniciar el servicio: ${error instanceof Error ? error.message : String(error)}`)
  process.exit(1)
})
