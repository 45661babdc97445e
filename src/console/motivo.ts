// X-Motivo (modules.yaml's motivo_requerido): when the API answers that a motivo is required,
// the person is asked for it and the request goes again with the header. The console never
// decides when a motivo is needed; the answer says so. The motivo given is kept for the module
// until the screen changes, so a record's page (record, history, versions) asks once.
import { ApiError, MESSAGES, call, type Answer, type CallOptions } from './api.js'

type Ask = (module: string) => Promise<string | null>

let ask: Ask = async () => null
const given = new Map<string, string>()

/** The app's prompt (motivo-prompt.ts). */
export const setMotivoAsker = (asker: Ask): void => {
  ask = asker
}

/** A new screen: motivos given before are asked again. */
export const forgetMotivos = (): void => given.clear()

export async function callFor<T>(module: string, method: string, path: string, options: CallOptions = {}) {
  const kept = given.get(module)
  try {
    return await call<T>(method, path, kept === undefined ? options : { ...options, motivo: kept })
  } catch (error) {
    if (!(error instanceof ApiError) || error.message !== MESSAGES.motivo) throw error
    const motivo = await ask(module)
    if (motivo === null) throw error
    const answer: Answer<T> = await call<T>(method, path, { ...options, motivo })
    given.set(module, motivo)
    return answer
  }
}

/** Asks the person for a motivo for `module` (a request the API refused without one). */
export const askMotivo = (module: string): Promise<string | null> => ask(module)
