// The service's entry point as a plain script (`node dist/src/app/server.js`): `records serve`
// without the command line around it.
import { isOperatorError } from '../errors.js'
import { serve } from './serve.js'

serve().catch((error: unknown) => {
  // An operator's problem is said as it is; anything else is a failure to start with its reason.
  if (isOperatorError(error)) console.error(error.message)
  else console.error(`No se pudo iniciar el servicio: ${error instanceof Error ? error.message : String(error)}`)
  process.exit(1)
})
