// What every handing over of data from the command line names (D29): to whom and why. `records
// export` and `records package` (D43) require both; the audit entries they write carry them.
import { MOTIVO_MAX_LENGTH, usageError } from '../errors.js'

export interface Disclosure {
  readonly recipient: string
  readonly motivo: string
}

/** Both required: an export hands records to someone, for a reason. */
export function disclosureOf(recipient: string | undefined, motivo: string | undefined): Disclosure {
  const missing = [
    ...(recipient?.trim() ? [] : ['--destinatario <quién recibe los datos>']),
    ...(motivo?.trim() ? [] : ['--motivo <por qué>']),
  ]
  if (missing.length > 0)
    throw usageError(
      `Una exportación es una comunicación de datos y queda en la auditoría: indique ${missing.join(' y ')}`,
    )
  if (motivo!.trim().length > MOTIVO_MAX_LENGTH)
    throw usageError(`--motivo no puede superar ${MOTIVO_MAX_LENGTH} caracteres (recibidos ${motivo!.trim().length})`)
  return { recipient: recipient!.trim(), motivo: motivo!.trim() }
}
