// `records serve` (and `npm start`): settings -> openService -> listen, and a clean stop
// on SIGTERM/SIGINT. Failing to start throws: the caller prints the reason and exits 1.
import { createPrettyStream, resolveLogFormat } from './console-log.js'
import { openService, serviceVersion, type OpenServiceOptions } from './service.js'
import { loadDotEnv, loadSettings } from './settings.js'
import { bannerLines, loginCommand } from './start-banner.js'
import { consoleDir } from './console-files.js'
import { adminPasswordFileOf, removeStaleAdminPassword, writeAdminPasswordFile } from './admin-password-file.js'
import { discardGeneratedSecrets } from './refused-start.js'
import type { Settings } from './settings.js'

/** How long a stop waits for requests in flight before it gives up. */
const SHUTDOWN_GRACE_MS = 30_000

/** `programId`: the running build's id when it is the bundle (EngineOptions.programId). */
export async function serve(options: { readonly programId?: string } = {}): Promise<void> {
  loadDotEnv()
  const settings = loadSettings()
  const format = resolveLogFormat(settings.logFormat, process.stdout.isTTY === true)
  const color = process.stdout.isTTY === true
  const stream = format === 'pretty' ? { stream: createPrettyStream(process.stdout, { color }) } : {}
  const logger = { level: settings.logLevel, ...stream }
  const terminal = format === 'pretty' && process.stdout.isTTY === true
  const programId = options.programId === undefined ? {} : options
  const { service, address } = await openAndListen(settings, { logger, ...programId })
  const log = service.app.log
  for (const name of settings.generated)
    log.warn(
      `${name} no estaba configurado: se ha generado uno en ${settings.dataDir} (permisos 0600). Configure ${name} en producción.`,
    )
  // A new database takes dozens of steps: one line says so, the steps go to debug.
  if (service.migrated.length > 0)
    log.info(`Esquema actualizado desde modules.yaml: ${service.migrated.length} cambios aplicados`)
  for (const step of service.migrated) log.debug({ step }, 'migración aplicada')
  const base = `${address}${settings.basePath === '/' ? '' : settings.basePath}`
  const username = service.initialAdmin?.username ?? settings.adminUsername
  const generatedPassword = service.initialAdmin?.password
  // No terminal (systemd, a container): the password goes to a 0600 file, the log names the file.
  const passwordFile =
    generatedPassword === undefined || terminal
      ? undefined
      : writeAdminPasswordFile(settings.dataDir, generatedPassword)
  if (
    service.initialAdmin === undefined &&
    (await removeStaleAdminPassword(settings.dataDir, username, service.accounts))
  )
    log.info(`${adminPasswordFileOf(settings.dataDir)} borrado: la contraseña inicial ya se cambió`)
  const password = passwordFile === undefined ? generatedPassword : undefined
  if (format === 'pretty') {
    const created = service.initialAdmin !== undefined
    const database = service.database.location
    const banner = bannerLines({
      base,
      version: serviceVersion(),
      database,
      username,
      password,
      created,
      console: settings.consoleEnabled && consoleDir() !== undefined,
      ...(passwordFile === undefined ? {} : { passwordFile }),
    })
    process.stdout.write(`${banner.join('\n')}\n`)
  } else {
    // JSON for log tools: the same facts, one per line, none of them a warning,
    // never the password: JSON means no terminal, so a generated one is in its file.
    const urls = {
      docs: `${base}/docs`,
      health: `${base}/health`,
      ...(settings.consoleEnabled && consoleDir() !== undefined ? { consola: `${base}/consola/` } : {}),
    }
    log.info(urls, `Servicio disponible en ${base} (base de datos ${service.database.location})`)
    if (service.initialAdmin !== undefined)
      log.info(
        passwordFile !== undefined
          ? `Primer superadministrador creado: usuario '${username}'; su contraseña está en ${passwordFile} ` +
              '(permisos 0600). Léala, entre y cámbiela: el fichero se borra con el cambio.'
          : `Primer superadministrador creado: usuario '${username}' con la contraseña de ADMIN_PASSWORD.`,
      )
    log.info(`Inicie sesión: ${loginCommand(base, username, password)}`)
  }

  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    log.info(
      { signal },
      'deteniendo el servicio: no se aceptan conexiones nuevas y se terminan las solicitudes en curso',
    )
    // A request that never ends must not keep the process alive for ever.
    setTimeout(() => {
      log.error(`el servicio no se detuvo en ${SHUTDOWN_GRACE_MS / 1000} s: se fuerza la salida`)
      process.exit(1)
    }, SHUTDOWN_GRACE_MS).unref()
    try {
      await service.close() // Fastify waits for requests in flight, then the read-audit buffer and the database close
      // F12: entries the writer could not write by the end are lost with the process: said, and a failed stop.
      const { unwritten, failing } = service.consultationLog()
      if (unwritten > 0) {
        log.error(
          { unwritten, code: failing?.code },
          `servicio detenido, pero ${unwritten} consultas no constan en la auditoría: no se pudieron escribir`,
        )
        process.exit(1)
      }
      log.info('servicio detenido: base de datos cerrada')
      process.exit(0)
    } catch (error) {
      log.error({ err: error }, 'error al detener el servicio')
      process.exit(1)
    }
  }
  process.once('SIGTERM', () => void stop('SIGTERM'))
  process.once('SIGINT', () => void stop('SIGINT'))
}

/** Opens the service and listens; a start that fails removes the secrets it generated (refused-start.ts). */
async function openAndListen(settings: Settings, options: OpenServiceOptions) {
  let service: Awaited<ReturnType<typeof openService>> | undefined
  try {
    service = await openService(settings, options)
    const address = await service.app.listen({ port: settings.port, host: settings.host })
    return { service, address }
  } catch (error) {
    await service?.close().catch(() => undefined)
    await discardGeneratedSecrets(settings)
    throw error
  }
}
