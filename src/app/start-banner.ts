// What a person needs after `npm start`: where the API, its docs page and
// its health check are, the first superadmin's credentials when this start created them, and
// a login command that works when pasted into a shell (bash, zsh, sh).

export interface BannerOptions {
  /** The API's base URL, BASE_PATH included. */
  readonly base: string
  readonly version: string
  readonly database: string
  readonly username: string
  /** Known only on the start that generated it. */
  readonly password: string | undefined
  /** This start created the first superadmin. */
  readonly created: boolean
  /** The browser console is served (D44): its address is shown. */
  readonly console?: boolean
  /** Where the generated password was written instead of being shown (no terminal). */
  readonly passwordFile?: string
}

/** `text` as one single-quoted shell word, whatever it contains. */
const shellQuoted = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`

/**
 * With the password: the whole command. Without it (a later start, or ADMIN_PASSWORD): the
 * command asks for it with echo off (POSIX sh, so bash and zsh alike) and sends it.
 */
export function loginCommand(base: string, username: string, password: string | undefined): string {
  const curl = `curl -sS -X POST ${base}/auth/login -H 'content-type: application/json'`
  if (password !== undefined) return `${curl} -d ${shellQuoted(JSON.stringify({ username, password }))}`
  const user = JSON.stringify(username).replace(/["\\$`]/g, '\\$&')
  const prompt = `Contraseña de ${username.replaceAll("'", '')}: `
  return (
    `stty -echo; printf '${prompt}'; read -r RECORDS_PASSWORD; stty echo; echo; ` +
    `${curl} -d "{\\"username\\":${user},\\"password\\":\\"$RECORDS_PASSWORD\\"}"`
  )
}

/** The banner printed on a terminal, above the log lines. */
export function bannerLines(options: BannerOptions): string[] {
  const { base, username, password } = options
  const lines = [
    '',
    `  municipal-records ${options.version} en marcha`,
    '',
    `  API            ${base}`,
    ...(options.console === true ? [`  Consola        ${base}/consola/`] : []),
    `  Documentación  ${base}/docs`,
    `  Salud          ${base}/health`,
    `  Base de datos  ${options.database}`,
    '',
  ]
  if (options.created && options.passwordFile !== undefined)
    lines.push(
      `  Primer superadministrador creado: usuario '${username}'; su contraseña está en ${options.passwordFile}`,
      '  (permisos 0600): léala, entre y cámbiela; el fichero se borra con el cambio.',
      '',
    )
  else if (options.created)
    lines.push(
      password === undefined
        ? `  Primer superadministrador creado: usuario '${username}', con la contraseña de ADMIN_PASSWORD.`
        : `  Primer superadministrador creado: usuario '${username}', contraseña '${password}'`,
      ...(password === undefined ? [] : ['  (se muestra solo esta vez: cámbiela tras entrar)']),
      '',
    )
  const who = password === undefined ? ` como '${username}'` : ''
  lines.push(
    `  Inicie sesión${who} (devuelve un token para la cabecera Authorization: Bearer):`,
    '',
    `  ${loginCommand(base, username, password)}`,
    '',
  )
  return lines
}
