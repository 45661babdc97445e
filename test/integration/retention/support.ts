// Shared by the retention tests (D41): the shipped modules.yaml with one change each, written to a
// temporary directory removed when the test ends.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Test } from 'tap'
import { REPO_MODULES } from '../../helpers/api.js'

/** The shipped file with `change` applied, in a directory removed when `t` ends. */
function changedModules(t: Test, prefix: string, change: (shipped: string) => string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'modules.yaml')
  writeFileSync(file, change(readFileSync(REPO_MODULES, 'utf8')))
  return file
}

const AGENTE_PERMISSIONS = '  agente:\n    description: Operaciones básicas en su ámbito.\n    permissions:\n'

/** agente also holds retencion.*, so that its record scope (its own assigned records) shows in the answers. */
export const modulesWithScopedReviewer = (t: Test): string =>
  changedModules(t, 'records-retention-', (shipped) => {
    if (!shipped.includes(AGENTE_PERMISSIONS)) throw new Error('the agente role moved in modules.yaml')
    return shipped.replace(AGENTE_PERMISSIONS, `${AGENTE_PERMISSIONS}      - retencion.*\n`)
  })

const CUSTODIO = `  custodio:
    description: Consulta registros bloqueados (D41).
    permissions: [denuncias.ver, denuncias.bloqueados, personal.ver, personal.bloqueados]
`

/** One more role, which reads blocked denuncias and personal records. */
export const modulesWithCustodian = (t: Test): string =>
  changedModules(t, 'records-blocking-', (shipped) => {
    if (!shipped.includes('\nroles:\n')) throw new Error('roles: moved in modules.yaml')
    return shipped.replace('\nroles:\n', `\nroles:\n${CUSTODIO}`)
  })
