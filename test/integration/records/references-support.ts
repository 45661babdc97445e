// Shared by the references tests (D35): a `ref` field holds the id of a live
// record of its target module, checked on every write; `?expand=` embeds the target as the
// caller would read it there; a referenced record cannot be deleted unless the field says
// `on_delete: allow`; a field that becomes a reference over unresolved data is refused.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Test } from 'tap'
import { REPO_MODULES, startTestApi, VALID, type TestApi } from '../../helpers/api.js'

export const SHIPPED = readFileSync(REPO_MODULES, 'utf8')

/**
 * The shipped modules with two changes for the tests: oficial sees only active staff and not
 * their e-mail (a scope and a field rule on the target module); sanciones.agente_denunciante
 * lets its target be deleted.
 */
export const TEST_MODULES = SHIPPED.replace(
  '      final: [jubilado]\n',
  '      final: [jubilado]\n' +
    '    access:\n      oficial:\n        scope: { situacion: activo }\n        cannot_read: [contacto_email]\n',
).replace(
  'agente_denunciante: { type: ref, module: personal,',
  'agente_denunciante: { type: ref, module: personal, on_delete: allow,',
)

export async function start(
  t: Test,
  modules = TEST_MODULES,
  dataDir?: string,
): Promise<{ api: TestApi; token: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'records-refs-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'modules.yaml')
  writeFileSync(file, modules)
  const api = await startTestApi(t, {
    env: { MODULES_FILE: file },
    ...(dataDir === undefined ? {} : { dataDir, keepDir: true }),
  })
  return { api, token: await api.adminToken() }
}

let nifs = 0
export async function person(api: TestApi, extra: Record<string, unknown> = {}): Promise<any> {
  nifs += 1
  return api.create('personal', {
    ...VALID['personal']!(),
    nif: `${String(nifs).padStart(8, '0')}Z`,
    contacto_email: 'agente@example.org',
    ...extra,
  })
}
