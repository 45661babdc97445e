// Shared by the blocking tests (D41): the shipped modules.yaml with a role that reads blocked records.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Test } from 'tap'
import { REPO_MODULES } from '../../helpers/api.js'

const CUSTODIO = `  custodio:
    description: Consulta registros bloqueados (D41).
    permissions: [denuncias.ver, denuncias.bloqueados, personal.ver, personal.bloqueados]
`

/** The shipped file with one more role, which reads blocked denuncias and personal records. */
export function modulesWithCustodian(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'records-blocking-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const shipped = readFileSync(REPO_MODULES, 'utf8')
  if (!shipped.includes('\nroles:\n')) throw new Error('roles: moved in modules.yaml')
  const file = join(dir, 'modules.yaml')
  writeFileSync(file, shipped.replace('\nroles:\n', `\nroles:\n${CUSTODIO}`))
  return file
}
