// X-Motivo (modules.yaml's motivo_requerido): when the API answers that a motivo is required,
// the person is asked for it and the request goes again with the header. The console never
// decides when a motivo is needed; the answer says so. A motivo is kept per module AND action
// (consultar, crear, editar, eliminar) until the screen changes: a record's page (record,
// history, versions) asks once, and the motivo given to read a record is never sent to edit it.
import { ApiError, MESSAGES, call, type Answer, type CallOptions } from './api.js'

export type MotivoAction = 'consultar' | 'crear' | 'editar' | 'eliminar'
type Ask = (module: string, action: MotivoAction) => Promise<string | null>

let ask: Ask = async () => null
const given = new Map<string, string>()

/** The app's prompt (motivo-prompt.ts). */
export const setMotivoAsker = (asker: Ask): void => {
  ask = asker
}

/** A new screen: motivos given before are asked again. */
export const forgetMotivos = (): void => given.clear()

/** The action a request is, as modules.yaml's motivo_requerido names it. */
const actionOfRequest = (module: string, method: string, path: string): MotivoAction =>
  method === 'GET'
    ? 'consultar'
    : method === 'DELETE'
      ? 'eliminar'
      : method === 'POST' && path === `/${module}`
        ? 'crear'
        : 'editar'

/** The action the API's 400 names ("… el motivo para editar registros …"), else the request's. */
export function motivoAction(error: ApiError, module: string, method: string, path: string): MotivoAction {
  for (const detail of error.details) {
    const named = /motivo para (consultar|crear|editar|eliminar) /.exec(detail.message)?.[1]
    if (named !== undefined) return named as MotivoAction
  }
  return actionOfRequest(module, method, path)
}

export async function callFor<T>(module: string, method: string, path: string, options: CallOptions = {}) {
  const key = `${module}\n${actionOfRequest(module, method, path)}`
  const kept = given.get(key)
  try {
    return await call<T>(method, path, kept === undefined ? options : { ...options, motivo: kept })
  } catch (error) {
    if (!(error instanceof ApiError) || error.message !== MESSAGES.motivo) throw error
    const action = motivoAction(error, module, method, path)
    const motivo = await ask(module, action)
    if (motivo === null) throw error
    const answer: Answer<T> = await call<T>(method, path, { ...options, motivo })
    given.set(key, motivo)
    given.set(`${module}\n${action}`, motivo)
    return answer
  }
}

/** Asks the person for a motivo for `action` on `module` (a request the API refused without one). */
export const askMotivo = (module: string, action: MotivoAction): Promise<string | null> => ask(module, action)
