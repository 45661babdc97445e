// The console's one way to the service: the public API, with the signed-in user's token
// (sessionStorage: gone with the tab). Every rule is the API's; this file only carries answers.
export interface ErrorDetail {
  readonly field?: string
  readonly message: string
  readonly metodos?: readonly string[]
}

/**
 * What the API answered when it was not a success, as its envelope says. Not an Error: it is an
 * answer to show, not a fault of the console (errors.ts holds the service's only Error classes).
 */
export class ApiError {
  constructor(
    readonly status: number,
    readonly message: string,
    readonly details: readonly ErrorDetail[],
  ) {}
}

/** The API's messages the console reacts to (docs/api-reference.md, section 7). */
export const MESSAGES = {
  secondFactor: 'Se requiere segundo factor',
  motivo: 'Indique el motivo de la consulta en la cabecera X-Motivo',
  conflict: 'Conflicto de versión',
} as const

/** The API's base path: the console lives at `{BASE_PATH}/consola/`. */
export const API_BASE = location.pathname.replace(/\/consola(\/.*)?$/, '')

const TOKEN_KEY = 'records.token'
const USER_KEY = 'records.user'

export interface SessionUser {
  readonly id: string
  readonly username: string
  readonly nombre?: string
  readonly rol: string
}

export const session = {
  token: (): string | null => sessionStorage.getItem(TOKEN_KEY),
  user(): SessionUser | null {
    const text = sessionStorage.getItem(USER_KEY)
    return text === null ? null : (JSON.parse(text) as SessionUser)
  },
  start(token: string, user: SessionUser): void {
    sessionStorage.setItem(TOKEN_KEY, token)
    sessionStorage.setItem(USER_KEY, JSON.stringify(user))
  },
  end(): void {
    sessionStorage.removeItem(TOKEN_KEY)
    sessionStorage.removeItem(USER_KEY)
  },
}

/** Fired when the API no longer takes the token (expired, revoked): the app goes back to sign-in. */
export const SIGNED_OUT = 'records:signed-out'

export interface CallOptions {
  readonly body?: unknown
  readonly ifMatch?: string | null
  /** X-Motivo, percent-encoded (the API decodes it): header values are bytes. */
  readonly motivo?: string
}

export interface Answer<T> {
  readonly data: T
  readonly etag: string | null
}

export async function call<T>(method: string, path: string, options: CallOptions = {}): Promise<Answer<T>> {
  const headers: Record<string, string> = { accept: 'application/json' }
  const token = session.token()
  if (token !== null) headers['authorization'] = `Bearer ${token}`
  if (options.body !== undefined) headers['content-type'] = 'application/json'
  if (options.ifMatch !== undefined && options.ifMatch !== null) headers['if-match'] = options.ifMatch
  if (options.motivo !== undefined) headers['x-motivo'] = encodeURIComponent(options.motivo)
  const response = await fetch(`${API_BASE}${path}`, {
    method,
    headers,
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  })
  const envelope = (await response.json().catch(() => ({}))) as {
    success?: boolean
    data?: T
    error?: string
    details?: ErrorDetail[]
  }
  if (response.ok && envelope.success === true) return { data: envelope.data as T, etag: response.headers.get('etag') }
  const error = new ApiError(response.status, envelope.error ?? `Error ${response.status}`, envelope.details ?? [])
  if (response.status === 401 && token !== null) {
    session.end()
    dispatchEvent(new CustomEvent(SIGNED_OUT, { detail: error.message }))
  }
  throw error
}

/**
 * A request whose body or answer is a file, not JSON (evidence files, D43): the same token and
 * headers; a refusal comes back in the API's JSON envelope and is thrown as an ApiError.
 */
export async function callFile(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: Blob,
): Promise<Response> {
  const token = session.token()
  const all: Record<string, string> = { ...headers }
  if (token !== null) all['authorization'] = `Bearer ${token}`
  const response = await fetch(`${API_BASE}${path}`, { method, headers: all, ...(body === undefined ? {} : { body }) })
  if (response.ok) return response
  const envelope = (await response.json().catch(() => ({}))) as { error?: string; details?: ErrorDetail[] }
  const error = new ApiError(response.status, envelope.error ?? `Error ${response.status}`, envelope.details ?? [])
  if (response.status === 401 && token !== null) {
    session.end()
    dispatchEvent(new CustomEvent(SIGNED_OUT, { detail: error.message }))
  }
  throw error
}
