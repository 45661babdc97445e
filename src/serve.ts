// `records serve` (and `npm start`): settings -> openService -> listen, and a clean stop
// on SIGTERM/SIGINT. Failing to start throws: the caller prints the reason and exits 1.
import { openService } from './service.js'
import { loadDotEnv, loadSettings } from './settings.js'

export async function serve(): Promise<void> {
  loadDotEnv()
  const settings = loadSettings()
  const service = await openService(settings, { logger: { level: settings.logLevel } })
  const log = service.app.log
  for (const name of settings.generated)
    log.warn(`${name} no estaba configurado: se ha generado uno en ${settings.dataDir} (permisos 0600). Configure ${name} en producción.`)
  // A new database takes dozens of steps: one line says so, the steps go to debug.
  if (service.migrated.length > 0) log.info(`Esquema actualizado desde modules.yaml: ${service.migrated.length} cambios aplicados`)
  for (const step of service.migrated) log.debug({ step }, 'migración aplicada')
  const address = await service.app.listen({ port: settings.port, host: settings.host })
  const base = `${address}${settings.basePath === '/' ? '' : settings.basePath}`
  log.info(`Servicio disponible en ${base} (base de datos ${service.database.location})`)
  if (service.initialAdmin !== undefined) {
    const { username, password } = service.initialAdmin
    log.warn(password === undefined
      ? `Primer superadministrador creado: usuario '${username}' con la contraseña de ADMIN_PASSWORD.`
      : `Primer superadministrador creado: usuario '${username}', contraseña '${password}'. Se muestra solo esta vez: cámbiela.`)
  }
  log.info(`Inicie sesión: curl -X POST ${base}/auth/login -H 'content-type: application/json' -d '{"username":"…","password":"…"}'`)

  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    log.info({ signal }, 'deteniendo el servicio')
    await service.close()
    process.exit(0)
  }
  process.once('SIGTERM', () => void stop('SIGTERM'))
  process.once('SIGINT', () => void stop('SIGINT'))
}
