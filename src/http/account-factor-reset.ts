// D42: `PUT /{accounts module}/{id}` with `{"segundo_factor": null}` is how an administrator
// resets a user's second factors (a lost phone, no recovery code left): every factor and recovery
// code of the account goes and its tokens end. Not a field of the account: the key is taken out
// of the body before the module's own validation, and must come alone.
import type { ModuleSpec } from '../compile/types.js'
import { validationFailed } from '../errors.js'

export const FACTOR_RESET_KEY = 'segundo_factor'

/** Whether `body` asks for a reset; 400 when the key comes with another value or other fields. */
export function asksFactorReset(spec: ModuleSpec, body: unknown): boolean {
  // A module that declares a field of that name keeps it as its own.
  if (spec.fieldsByName.has(FACTOR_RESET_KEY)) return false
  if (body === null || typeof body !== 'object' || Array.isArray(body) || !(FACTOR_RESET_KEY in body)) return false
  const b = body as Record<string, unknown>
  if (b[FACTOR_RESET_KEY] !== null)
    throw validationFailed([
      {
        field: FACTOR_RESET_KEY,
        message: `'${FACTOR_RESET_KEY}' solo admite null: quita los segundos factores de la cuenta (D42)`,
      },
    ])
  if (Object.keys(b).length > 1)
    throw validationFailed([
      {
        field: FACTOR_RESET_KEY,
        message: `'${FACTOR_RESET_KEY}: null' va sola en la solicitud: cambie los demás campos en otra`,
      },
    ])
  return true
}
