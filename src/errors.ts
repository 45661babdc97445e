// Every error the service can answer with (AppError: a client sees `message` and `details`;
// `cause` is for logs only), and the operator errors of startup and the `records` command
// (OperatorError). A bare `throw new Error` elsewhere means a programmer's bug.

export type ErrorCode =
  | 'BAD_JSON'
  | 'VALIDATION'
  | 'REQUIRED'
  | 'UNAUTHENTICATED'
  | 'INVALID_TOKEN'
  | 'BAD_CREDENTIALS'
  | 'FORBIDDEN'
  | 'RECORD_NOT_FOUND'
  | 'ROUTE_NOT_FOUND'
  | 'UNIQUE_CONFLICT'
  | 'VERSION_CONFLICT'
  | 'REFERENCED'
  | 'TRANSITION_NOT_ALLOWED'
  | 'READ_ONLY_IN_STATE'
  | 'FINAL_STATE'
  | 'RETENTION_CONFLICT'
  | 'RECORD_BLOCKED'
  | 'BODY_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'RATE_LIMITED'
  | 'BUSY'
  | 'UNAVAILABLE'
  | 'INTEGRITY'
  | 'INTERNAL'
  | 'SECOND_FACTOR_REQUIRED'
  | 'SECOND_FACTOR_INVALID'
  | 'SECOND_FACTOR_CONFLICT'
  | 'FILE_NOT_FOUND'
  | 'FILE_REJECTED'

export interface ErrorDetail {
  readonly field: string
  readonly message: string
  /** D42: how the second step of a login may be given (`totp`, `recuperacion`). */
  readonly metodos?: readonly string[]
}

export interface AppErrorOptions {
  readonly details?: readonly ErrorDetail[]
  readonly cause?: unknown
  readonly headers?: Readonly<Record<string, string>>
}

export class AppError extends Error {
  readonly code: ErrorCode
  readonly statusCode: number
  readonly details: readonly ErrorDetail[] | undefined
  readonly headers: Readonly<Record<string, string>>

  constructor(code: ErrorCode, statusCode: number, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'AppError'
    this.code = code
    this.statusCode = statusCode
    this.details = options.details
    this.headers = options.headers ?? {}
  }
}

export const isAppError = (error: unknown): error is AppError => error instanceof AppError

export const MESSAGES = {
  badJson: 'JSON inválido',
  required: 'Datos requeridos',
  invalid: 'Datos inválidos',
  noToken: 'Token no proporcionado',
  invalidToken: 'Token inválido o expirado',
  badCredentials: 'Credenciales inválidas',
  forbidden: 'Sin permisos para esta operación',
  recordNotFound: 'Registro no encontrado',
  recordVersionNotFound: 'Versión del registro no encontrada',
  routeNotFound: 'Ruta no encontrada',
  versionConflict: 'Conflicto de versión',
  referenced: 'El registro está referenciado por otros registros y no se puede eliminar',
  transitionNotAllowed: 'Transición de estado no permitida',
  readOnlyInState: 'Campo no modificable en el estado actual del registro',
  finalState: 'Registro no modificable en su estado final',
  bodyTooLarge: 'La solicitud supera el tamaño máximo permitido',
  unsupportedMediaType: 'Tipo de contenido no admitido: envíe application/json',
  rateLimited: 'Demasiadas solicitudes',
  busy: 'Servicio ocupado, reintente en unos segundos',
  unavailable: 'Servicio no disponible',
  integrity: 'Error de integridad en los datos almacenados',
  internal: 'Error interno del servidor',
  invalidTicket: 'Vale de eventos inválido, caducado o ya usado',
  tooManyStreams: 'Demasiados flujos de eventos abiertos',
  motivoRequired: 'Indique el motivo de la consulta en la cabecera X-Motivo',
  secondFactorRequired: 'Se requiere segundo factor',
  secondFactorInvalid: 'Código de segundo factor inválido',
  alreadyBlocked: 'El registro está bloqueado',
  recordNotBlocked: 'El registro no está bloqueado',
  recordHeld: 'Registro retenido',
  recordAlreadyHeld: 'El registro ya está retenido',
  recordNotHeld: 'El registro no está retenido',
  liveAccountErasure: 'Una cuenta activa no se puede suprimir',
  blockedRecord: 'Registro bloqueado',
  fileNotFound: 'Fichero no encontrado',
  fileRejected: 'Fichero rechazado',
} as const

export const badJson = (cause?: unknown): AppError => new AppError('BAD_JSON', 400, MESSAGES.badJson, { cause })

export const validationFailed = (details: readonly ErrorDetail[]): AppError =>
  new AppError('VALIDATION', 400, `${MESSAGES.invalid}: ${details.map((d) => d.message).join('; ')}`, { details })

export const requiredMissing = (details: readonly ErrorDetail[]): AppError =>
  new AppError('REQUIRED', 400, MESSAGES.required, { details })

/** The longest justification accepted in `X-Motivo`. */
export const MOTIVO_MAX_LENGTH = 500

/** 400: modules.yaml requires a justification of this role for this action (`motivo_requerido`). */
export const motivoRequired = (module: string, action: string, role: string): AppError =>
  new AppError('REQUIRED', 400, MESSAGES.motivoRequired, {
    details: [
      {
        field: 'X-Motivo',
        message: `El rol '${role}' debe indicar el motivo para ${action} registros de '${module}' (cabecera X-Motivo, hasta ${MOTIVO_MAX_LENGTH} caracteres)`,
      },
    ],
  })

/** 400 without `X-Motivo` where it is always required; `why` says what needs it. */
const justificationRequired = (why: string): AppError =>
  new AppError('REQUIRED', 400, MESSAGES.motivoRequired, {
    details: [{ field: 'X-Motivo', message: `${why} (cabecera X-Motivo, hasta ${MOTIVO_MAX_LENGTH} caracteres)` }],
  })

/** 400: finding a person's records across modules (GET /interesados, D41) is always justified. */
export const subjectMotivoRequired = (): AppError =>
  justificationRequired('Buscar los registros de una persona exige indicar el motivo')

/** 400: a blocked record (D41) is read, by a role that may, only with a justification. */
export const blockedMotivoRequired = (module: string): AppError =>
  justificationRequired(`Un registro bloqueado de '${module}' solo se consulta indicando el motivo`)

/** 400: an `X-Motivo` longer than MOTIVO_MAX_LENGTH. */
export const motivoTooLong = (length: number): AppError =>
  validationFailed([
    {
      field: 'X-Motivo',
      message: `El motivo (cabecera X-Motivo) no puede superar ${MOTIVO_MAX_LENGTH} caracteres (recibidos ${length})`,
    },
  ])

/** Why an `X-Motivo` is refused once decoded (F1, F7): what would hide or corrupt the entry that stores it. */
export type MotivoFault = 'control' | 'bidi' | 'invisible'
const MOTIVO_FAULTS: Record<MotivoFault, string> = {
  control:
    'El motivo (cabecera X-Motivo) contiene caracteres de control (U+0000 a U+001F, U+007F a U+009F, ' +
    'U+2028, U+2029), que no se admiten',
  bidi: 'El motivo (cabecera X-Motivo) contiene marcas de dirección del texto (bidireccionales), que no se admiten',
  invisible: 'El motivo (cabecera X-Motivo) no contiene ningún carácter visible',
}

/** 400: an `X-Motivo` holding control or bidirectional characters, or nothing visible (F1, F7). */
export const motivoInvalid = (fault: MotivoFault): AppError =>
  validationFailed([{ field: 'X-Motivo', message: MOTIVO_FAULTS[fault] }])

export const noToken = (): AppError => new AppError('UNAUTHENTICATED', 401, MESSAGES.noToken)
export const invalidToken = (cause?: unknown): AppError =>
  new AppError('INVALID_TOKEN', 401, MESSAGES.invalidToken, { cause })
export const badCredentials = (): AppError => new AppError('BAD_CREDENTIALS', 401, MESSAGES.badCredentials)
/** D42: the password was right; the login needs `codigo` too, by one of `metodos`. */
export const secondFactorRequired = (metodos: readonly string[]): AppError =>
  new AppError('SECOND_FACTOR_REQUIRED', 401, MESSAGES.secondFactorRequired, {
    details: [
      {
        field: 'codigo',
        message: metodos.includes('passkey')
          ? "Inicie sesión con su llave de acceso (POST /auth/login/passkey) o indique en 'codigo' un código " +
            'de su aplicación de autenticación o de recuperación'
          : "Indique en 'codigo' el código de su aplicación de autenticación o uno de sus códigos de recuperación",
        metodos,
      },
    ],
  })

/** D42: a wrong, expired or already used code at login; it counts as a failed login (D19). */
export const secondFactorInvalid = (metodos: readonly string[]): AppError =>
  new AppError('SECOND_FACTOR_INVALID', 401, MESSAGES.secondFactorInvalid, {
    details: [{ field: 'codigo', message: 'El código no es válido, ha caducado o ya se usó', metodos }],
  })

/** D42: a wrong current code where one is asked of a signed-in user (removing a factor, confirming one). */
export const codeRejected = (): AppError =>
  validationFailed([
    {
      field: 'codigo',
      message: 'El código no es válido: escriba el que muestra ahora su aplicación (compruebe la hora del teléfono)',
    },
  ])

/** D42: an authenticator's answer to an enrolment that does not verify (challenge, origin, signature). */
export const passkeyRejected = (): AppError =>
  validationFailed([
    {
      field: 'response',
      message: 'La respuesta del autenticador no es válida: pida opciones nuevas y repita el alta',
    },
  ])

/** D42: an enrolment that cannot start or be confirmed in the account's present state (409). */
export const secondFactorConflict = (message: string): AppError => new AppError('SECOND_FACTOR_CONFLICT', 409, message)

/** 403; `details` names the permission or rule that refused, never a field's value. */
export const forbidden = (details?: readonly ErrorDetail[]): AppError =>
  new AppError('FORBIDDEN', 403, MESSAGES.forbidden, details === undefined ? {} : { details })

/** The detail of a 403 for a missing permission: `field` is 'permiso'. */
export const missingPermission = (permission: string, role: string): AppError =>
  forbidden([{ field: 'permiso', message: `El rol '${role}' no tiene el permiso '${permission}'` }])

/** D42: the role requires a second factor and the account has none; only enrolling is open. */
export const enrolmentRequired = (role: string, passkey = false): AppError =>
  forbidden([
    {
      field: 'segundo_factor',
      message: passkey
        ? `El rol '${role}' requiere una llave de acceso: dé de alta una en /me/segundo-factor ` +
          '(POST /me/segundo-factor/passkey/opciones y POST /me/segundo-factor/passkey)'
        : `El rol '${role}' requiere segundo factor: dé de alta uno en /me/segundo-factor ` +
          '(POST /me/segundo-factor/totp y su confirmación)',
    },
  ])

/** A move of a workflow: details name the field, the current state and the allowed next states. */
export const transitionNotAllowed = (
  field: string,
  current: string,
  allowed: readonly string[],
  role: string,
): AppError =>
  new AppError('TRANSITION_NOT_ALLOWED', 409, MESSAGES.transitionNotAllowed, {
    details: [
      {
        field,
        message:
          `Estado actual '${current}'; ` +
          (allowed.length === 0
            ? `el rol '${role}' no puede cambiarlo desde este estado`
            : `estados siguientes permitidos para el rol '${role}': ${allowed.join(', ')}`),
      },
    ],
  })

/** A new record in a state the workflow does not create records in (D6). */
export const creationStateNotAllowed = (field: string, allowed: readonly string[]): AppError =>
  new AppError('TRANSITION_NOT_ALLOWED', 409, MESSAGES.transitionNotAllowed, {
    details: [{ field, message: `Un registro nuevo solo puede crearse en: ${allowed.join(', ')}` }],
  })

export const readOnlyInState = (fields: readonly string[], state: string): AppError =>
  new AppError('READ_ONLY_IN_STATE', 409, MESSAGES.readOnlyInState, {
    details: fields.map((field) => ({
      field,
      message: `'${field}' no se puede modificar con el registro en estado '${state}'`,
    })),
  })
/** 409: a record in a final state is read-only, for editing and deleting, but for `final_editable_by` (F9). */
export const finalStateReadOnly = (field: string, state: string, action: 'modificar' | 'eliminar'): AppError =>
  new AppError('FINAL_STATE', 409, MESSAGES.finalState, {
    details: [{ field, message: `El registro está en el estado final '${state}': su rol no puede ${action}lo` }],
  })
export const recordNotFound = (): AppError => new AppError('RECORD_NOT_FOUND', 404, MESSAGES.recordNotFound)
/** `?version=N` that the record never had, or one written before versions were kept. */
export const recordVersionNotFound = (version: number, current: number): AppError =>
  new AppError('RECORD_NOT_FOUND', 404, MESSAGES.recordVersionNotFound, {
    details: [
      {
        field: 'version',
        message: `El registro no guarda la versión ${version}: su versión actual es la ${current}`,
      },
    ],
  })
/** D41: a retention decision that needs an unblocked record (conservar, bloquear), or a blocked one (desbloquear). */
export const retentionBlockConflict = (blocked: boolean, decision: string): AppError =>
  new AppError('RETENTION_CONFLICT', 409, blocked ? MESSAGES.alreadyBlocked : MESSAGES.recordNotBlocked, {
    details: [
      {
        field: 'decision',
        message: blocked
          ? `'${decision}' no se aplica a un registro bloqueado: desbloquéelo antes`
          : `'${decision}' solo se aplica a un registro bloqueado`,
      },
    ],
  })
/** D41: `suprimir` of a record under a legal hold: 409 naming the hold's reference. */
export const retentionHeld = (reference: string): AppError =>
  new AppError('RETENTION_CONFLICT', 409, MESSAGES.recordHeld, {
    details: [
      {
        field: 'referencia',
        message: `Retenido por '${reference}': levante la retención antes de suprimirlo`,
      },
    ],
  })
/**
 * D41: `suprimir` of an account not deleted first: its DELETE applies the rules of who may remove
 * which account (D21), which an erasure by `retencion.decidir` alone would skip.
 */
export const liveAccountErasure = (): AppError =>
  new AppError('RETENTION_CONFLICT', 409, MESSAGES.liveAccountErasure, {
    details: [
      {
        field: 'decision',
        message: 'Elimine antes la cuenta (DELETE del registro), que aplica quién puede eliminar cada cuenta',
      },
    ],
  })
/** D41: a legal hold put on a held record (`held`) or lifted from one that has none. */
export const retentionHoldConflict = (held: string | null): AppError =>
  new AppError('RETENTION_CONFLICT', 409, held === null ? MESSAGES.recordNotHeld : MESSAGES.recordAlreadyHeld, {
    details: [
      {
        field: 'referencia',
        message:
          held === null
            ? 'El registro no tiene ninguna retención legal que levantar'
            : `Ya lo retiene '${held}': levántela antes de poner otra`,
      },
    ],
  })
/**
 * D41: 403 for a record blocked by a retention decision, in the caller's scope. `permission`:
 * a read, which `{module}.bloqueados` with a motivo may make; undefined: a write, which nobody
 * may make until the record is unblocked.
 */
export const blockedRecord = (permission?: string): AppError =>
  new AppError('RECORD_BLOCKED', 403, MESSAGES.blockedRecord, {
    details: [
      {
        field: 'registro',
        message:
          permission === undefined
            ? 'El registro está bloqueado (D41): no se modifica, elimina ni cambia de estado hasta que se desbloquee'
            : `El registro está bloqueado (D41): solo lo consulta un rol con el permiso '${permission}', indicando el motivo (cabecera X-Motivo)`,
      },
    ],
  })
export const routeNotFound = (): AppError => new AppError('ROUTE_NOT_FOUND', 404, MESSAGES.routeNotFound)

export const uniqueConflict = (field: string): AppError =>
  new AppError('UNIQUE_CONFLICT', 409, `Ya existe un registro con el mismo valor en '${field}'`, {
    details: [{ field, message: `El valor de '${field}' ya está en uso` }],
  })

export const versionConflict = (current: number): AppError =>
  new AppError('VERSION_CONFLICT', 409, MESSAGES.versionConflict, {
    details: [{ field: '_version', message: `La versión actual es ${current}` }],
  })

/** A reference that names no live record of its target module: 400 naming the field. */
export const referenceNotFound = (field: string, module: string, id: string): AppError =>
  validationFailed([{ field, message: `'${field}' no es el id de un registro vivo de ${module}: '${id}'` }])

/** Who still references a record: the module, the field and some of their ids. */
export interface Referrer {
  readonly module: string
  readonly field: string
  readonly ids: readonly string[]
  /** More live records reference it than `ids` lists. */
  readonly more: boolean
}

/** A delete of a record that live records reference: 409, one detail per referencing field. */
export const stillReferenced = (referrers: readonly Referrer[]): AppError =>
  new AppError('REFERENCED', 409, MESSAGES.referenced, {
    details: referrers.map((r) => ({
      field: `${r.module}.${r.field}`,
      message: `Lo referencia${r.ids.length > 1 || r.more ? 'n' : ''} ${r.ids.join(', ')}${r.more ? ' y otros' : ''} (${r.module}.${r.field})`,
    })),
  })

export const queryTooLong = (max: number): AppError =>
  new AppError('VALIDATION', 400, `La consulta es demasiado larga: como máximo ${max} caracteres`, {
    details: [{ field: 'url', message: `La cadena de consulta admite como máximo ${max} caracteres` }],
  })

export const bodyTooLarge = (): AppError => new AppError('BODY_TOO_LARGE', 413, MESSAGES.bodyTooLarge)
export const unsupportedMediaType = (): AppError =>
  new AppError('UNSUPPORTED_MEDIA_TYPE', 415, MESSAGES.unsupportedMediaType)

/** D43: a field that is not a file field of the module, or a file number it does not hold. */
export const fileNotFound = (): AppError => new AppError('FILE_NOT_FOUND', 404, MESSAGES.fileNotFound)
/** D43: the upload exceeds the field's `max_size` (found while streaming: nothing is kept). */
export const fileTooLarge = (field: string, maxSize: number): AppError =>
  new AppError('BODY_TOO_LARGE', 413, `El fichero supera el tamaño máximo del campo '${field}' (${maxSize} bytes)`, {
    details: [{ field, message: `Como máximo ${maxSize} bytes` }],
  })
/** D43: a Content-Type the field does not accept. */
export const fileTypeNotAllowed = (field: string, type: string, allowed: readonly string[]): AppError =>
  new AppError('UNSUPPORTED_MEDIA_TYPE', 415, `Tipo de fichero no admitido en '${field}': ${type}`, {
    details: [{ field: 'content-type', message: `Tipos admitidos: ${allowed.join(', ')}` }],
  })
/** D43: the file cannot be kept as sent: its bytes are not its type, or its digest differs (nothing is kept). */
export const fileRejected = (field: string, message: string): AppError =>
  new AppError('FILE_REJECTED', 422, `${MESSAGES.fileRejected}: ${message}`, { details: [{ field, message }] })

export const rateLimited = (retryAfterSeconds: number): AppError =>
  new AppError('RATE_LIMITED', 429, MESSAGES.rateLimited, { headers: { 'retry-after': String(retryAfterSeconds) } })

/** A live-feed ticket unknown, expired or already redeemed: 401 like a bad token. */
export const invalidTicket = (): AppError => new AppError('INVALID_TOKEN', 401, MESSAGES.invalidTicket)

/** Past the open event streams allowed per user or per instance. */
export const tooManyStreams = (message: string): AppError =>
  new AppError('RATE_LIMITED', 429, MESSAGES.tooManyStreams, {
    details: [{ field: 'eventos', message }],
    headers: { 'retry-after': '15' },
  })

/**
 * An address that failed repeatedly for one username must wait: D23's 429,
 * explained in details on `field` (`username` at login, `password_actual` on POST /me/password, F6).
 */
export const loginDelayed = (retryAfterSeconds: number, field = 'username'): AppError =>
  new AppError('RATE_LIMITED', 429, MESSAGES.rateLimited, {
    headers: { 'retry-after': String(retryAfterSeconds) },
    details: [
      {
        field,
        message:
          'Demasiados intentos fallidos con este usuario desde esta dirección: ' +
          `reintente dentro de ${retryAfterSeconds} segundos`,
      },
    ],
  })

export const busy = (cause?: unknown): AppError =>
  new AppError('BUSY', 503, MESSAGES.busy, { cause, headers: { 'retry-after': '1' } })
export const unavailable = (cause?: unknown): AppError =>
  new AppError('UNAVAILABLE', 503, MESSAGES.unavailable, { cause })
/** 503 on /health: consultations are being served that the log cannot record (F1, F12; D29). */
export const consultationLogFailing = (unwritten: number, since: string, code: string): AppError =>
  new AppError('UNAVAILABLE', 503, MESSAGES.unavailable, {
    details: [
      {
        field: 'auditoria',
        message: `La auditoría de consultas no se puede escribir desde ${since} (${code}): ${unwritten} entradas pendientes`,
      },
    ],
  })
/** 503 to a read while the consultation log cannot be written and its backlog is full (F1; D29). */
export const consultationLogFull = (unwritten: number, since: string, code: string): AppError =>
  new AppError('UNAVAILABLE', 503, MESSAGES.unavailable, {
    cause: new Error(`consultation log failing since ${since} (${code}), ${unwritten} entries waiting`),
    headers: { 'retry-after': '5' },
  })
export const integrityError = (cause?: unknown): AppError =>
  new AppError('INTEGRITY', 500, MESSAGES.integrity, { cause })

/** A problem in modules.yaml (or another configuration source), with its position. */
export interface ConfigProblem {
  readonly file: string
  readonly line: number
  readonly column: number
  readonly message: string
}

export const formatConfigProblem = (p: ConfigProblem): string => `${p.file}:${p.line}:${p.column}: ${p.message}`

/**
 * What an operator or an administrator must fix: modules.yaml, a setting, a key, a migration
 * the data blocks, a command line. Never an HTTP answer: startup and the `records` command
 * print the message (`records: <message>`) and exit with `exitCode`.
 */
export type OperatorErrorCode =
  | 'CONFIG_INVALID'
  | 'SETTING_INVALID'
  | 'KEY_MISSING'
  | 'ADMIN_ROLE_MISSING'
  | 'MIGRATION_REFUSED'
  | 'COPY_REFUSED'
  | 'BACKUP_REFUSED'
  | 'RESTORE_REFUSED'
  | 'READ_AUDIT_UNWRITTEN'
  | 'USAGE'
  | 'COMMAND_FAILED'
  | 'USERNAME_COLLISION'
  | 'INSTALLATION_INCOMPLETE'

export interface OperatorErrorOptions {
  /** Every problem of a configuration file, each at its file:line:column. */
  readonly problems?: readonly ConfigProblem[]
  /** The items the message lists below its reason (the steps of a refused migration, say). */
  readonly items?: readonly string[]
  readonly exitCode?: number
  readonly cause?: unknown
}

export class OperatorError extends Error {
  readonly code: OperatorErrorCode
  readonly problems: readonly ConfigProblem[]
  readonly items: readonly string[]
  readonly exitCode: number

  constructor(code: OperatorErrorCode, message: string, options: OperatorErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'OperatorError'
    this.code = code
    this.problems = options.problems ?? []
    this.items = options.items ?? []
    this.exitCode = options.exitCode ?? 1
  }
}

export const isOperatorError = (error: unknown): error is OperatorError => error instanceof OperatorError

/** Exit status of a command-line usage error (unknown option, missing argument). */
export const USAGE_EXIT = 2

const listed = (reason: string, items: readonly string[]) => `${reason}:\n${items.map((s) => `  - ${s}`).join('\n')}`

/** modules.yaml (or the file it came from) is invalid: every problem, each at file:line:column. */
export const configInvalid = (problems: readonly ConfigProblem[]): OperatorError =>
  new OperatorError('CONFIG_INVALID', problems.map(formatConfigProblem).join('\n'), { problems })

/** An environment variable (or .env line) the service cannot use. */
export const settingInvalid = (message: string, cause?: unknown): OperatorError =>
  new OperatorError('SETTING_INVALID', message, { cause })

/** Every environment setting the service cannot use, one per line (as configInvalid lists modules.yaml's). */
export const settingsInvalid = (problems: readonly string[]): OperatorError =>
  new OperatorError('SETTING_INVALID', problems.join('\n'), { items: problems })

/** A file the installation ships is missing (a copy or an image that left it out): reinstall. */
export const installationIncomplete = (file: string, what: string): OperatorError =>
  new OperatorError(
    'INSTALLATION_INCOMPLETE',
    `No se encuentra ${file} (${what}): la instalación está incompleta; vuelva a instalar el servicio`,
  )

export const keyMissing = (missing: readonly string[]): OperatorError => {
  const one = missing.length === 1
  return new OperatorError(
    'KEY_MISSING',
    `La base de datos tiene valores cifrados con ${one ? 'la clave' : 'las claves'} ${missing.map((id) => `'${id}'`).join(', ')}, ` +
      `que no ${one ? 'está configurada' : 'están configuradas'}. Configure RECORDS_ENCRYPTION_KEY con la clave correcta ` +
      '(las anteriores, en RECORDS_ENCRYPTION_OLD_KEYS) o restaure el fichero encryption.key de DATA_DIR.',
    { items: missing },
  )
}

export const adminRoleMissing = (): OperatorError =>
  new OperatorError(
    'ADMIN_ROLE_MISSING',
    'modules.yaml no define ningún rol con el permiso *.* para el primer administrador',
  )

/** A migration not applied: the reason and the steps concerned; nothing was changed. */
export const migrationRefused = (reason: string, steps: readonly string[]): OperatorError =>
  new OperatorError('MIGRATION_REFUSED', listed(reason, steps), { items: steps })

export const copyRefused = (message: string): OperatorError => new OperatorError('COPY_REFUSED', message)
export const backupRefused = (message: string): OperatorError => new OperatorError('BACKUP_REFUSED', message)
/** `records restore` changed nothing: the reason (a running service, a file that is not a valid backup...). */
export const restoreRefused = (message: string): OperatorError => new OperatorError('RESTORE_REFUSED', message)

/** Revealing reads whose audit entries could not be written before the command ended. */
export const readAuditUnwritten = (count: number, cause?: unknown): OperatorError =>
  new OperatorError(
    'READ_AUDIT_UNWRITTEN',
    `${count} lecturas de datos cifrados no constan en la auditoría: no se pudieron escribir`,
    { cause },
  )

/** A command line the `records` command cannot run (exit status 2). */
export const usageError = (message: string): OperatorError =>
  new OperatorError('USAGE', message, { exitCode: USAGE_EXIT })

/** A `records` command that could not do its work, with the reason. */
export const commandFailed = (message: string, exitCode = 1): OperatorError =>
  new OperatorError('COMMAND_FAILED', message, { exitCode })

/** Live accounts whose usernames share one canonical form: a person chooses who keeps it. */
export const usernameCollision = (message: string): OperatorError => new OperatorError('USERNAME_COLLISION', message)
