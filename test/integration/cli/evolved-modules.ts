// The migration scenario shared by the SQLite and PostgreSQL runs of `records migrate`.
import { readFileSync } from 'node:fs'
import { REPO_MODULES } from '../../helpers/api.js'

const today = readFileSync(REPO_MODULES, 'utf8')

/** Today's modules.yaml with the five changes of the scenario (the last, a composite index on the renamed field). */
export const evolved =
  today
    .replace('      destino: { type: string }', '      destino: { type: string, encrypted: true }')
    // vehiculos' last field is followed by its workflow.
    .replace(
      '      asignado_a: { type: ref, module: personal, description: Agente al que está asignado }\n    workflow:',
      '      conductor_habitual: { type: ref, module: personal, renamed_from: asignado_a }\n      color: { type: string }\n    indexes:\n      - [conductor_habitual, estado]\n    workflow:',
    ) +
  `
  objetos_perdidos:
    prefix: OBP
    description: Objetos perdidos
    fields:
      descripcion: { type: text, required: true }
      entregado_a: { type: string }
`
