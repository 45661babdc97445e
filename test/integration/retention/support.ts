// Shared by the retention tests: the shipped modules.yaml with agente also holding retencion.*,
// so that its record scope (access.agente.scope: its own assigned records) shows in the answers.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Test } from 'tap'
import { REPO_MODULES } from '../../helpers/api.js'

const AGENTE_PERMISSIONS = '  agente:\n    description: Operaciones básicas en su ámbito.\n    permissions:\n'

/** The path of that file, removed when `t` ends. */
export function modulesWithScopedReviewer(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'records-retention-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const shipped = readFileSync(REPO_MODULES, 'utf8')
  if (!shipped.includes(AGENTE_PERMISSIONS)) throw new Error('the agente role moved in modules.yaml')
  const file = join(dir, 'modules.yaml')
  writeFileSync(file, shipped.replace(AGENTE_PERMISSIONS, `${AGENTE_PERMISSIONS}      - retencion.*\n`))
  return file
}
