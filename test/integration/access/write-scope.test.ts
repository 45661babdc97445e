// Scopes per action (D26): `scope` bounds every read and write of a role, `write_scope`
// narrows PUT and DELETE further. A DELETE outside the caller's scope is 404 and deletes nothing;
// readable but outside `write_scope` is 403 naming the rule; inside both it deletes. The shipped
// agente may not delete denuncias, so this test gives them `denuncias.eliminar` and a
// `write_scope` (open cases only) in a copy of the repository's modules.yaml.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { REPO_MODULES, startTestApi, VALID } from '../../helpers/api.js'

const A = 'PER-2026-00011'
const B = 'PER-2026-00012'
const NOT_FOUND = { success: false, error: 'Registro no encontrado' }
const OUTSIDE_WRITE_SCOPE = {
  success: false,
  error: 'Sin permisos para esta operación',
  details: [
    { field: 'registro', message: "El rol 'agente' no puede modificar este registro (write_scope de denuncias)" },
  ],
}

/** The shipped modules.yaml, with an agente that may delete the open denuncias of their scope. */
function modulesWithWriteScope(): string {
  const yaml = readFileSync(REPO_MODULES, 'utf8')
  const withPermission = yaml.replace(
    /(\n {2}agente:\n {4}description: .*\n {4}permissions:\n)/,
    '$1      - denuncias.eliminar\n',
  )
  const withScope = withPermission.replace(
    '        cannot_write: [agente_asignado]\n',
    '        cannot_write: [agente_asignado]\n        write_scope:\n          estado: [pendiente, investigacion]\n',
  )
  if (withScope === withPermission || withPermission === yaml) throw new Error('modules.yaml changed: update this test')
  return withScope
}

async function setup(t: Test) {
  const dir = mkdtempSync(join(tmpdir(), 'records-write-scope-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const modulesFile = join(dir, 'modules.yaml')
  writeFileSync(modulesFile, modulesWithWriteScope())
  const api = await startTestApi(t, { env: { MODULES_FILE: modulesFile } })
  const agente = await api.userWithRole('agente', { personal_id: A })
  const create = (extra: Record<string, unknown>) => api.create('denuncias', { ...VALID['denuncias']!(), ...extra })
  const mine = await create({ agente_asignado: A })
  const mineClosed = await create({ agente_asignado: A })
  const admin = await api.adminToken()
  const closed = await api.request('PUT', `/denuncias/${mineClosed._id}`, {
    token: admin,
    body: { estado: 'archivada' },
  })
  if (closed.status !== 200) throw new Error(JSON.stringify(closed.body))
  const theirs = await create({ agente_asignado: B })
  /** The record as superadmin sees it: 404 once deleted. */
  const status = async (id: string) => (await api.request('GET', `/denuncias/${id}`, { token: admin })).status
  return { api, agente, mine, mineClosed, theirs, status }
}

t.test('a DELETE outside the scope is 404 Registro no encontrado and deletes nothing', async (t) => {
  const { api, agente, theirs, status } = await setup(t)
  const reply = await api.request('DELETE', `/denuncias/${theirs._id}`, { token: agente.token })
  t.equal(reply.status, 404)
  t.same(reply.body, NOT_FOUND, 'the record is not revealed')
  t.equal(await status(theirs._id), 200, 'the record is still there')
  const total = await api.request('GET', '/denuncias', { token: await api.adminToken() })
  t.equal(total.body.data.total, 3, 'nothing was deleted')
})

t.test('a DELETE inside the scope and the write_scope deletes', async (t) => {
  const { api, agente, mine, status } = await setup(t)
  const reply = await api.request('DELETE', `/denuncias/${mine._id}`, { token: agente.token })
  t.equal(reply.status, 200, JSON.stringify(reply.body))
  t.equal(await status(mine._id), 404, 'deleted for everyone')
  const again = await api.request('DELETE', `/denuncias/${mine._id}`, { token: agente.token })
  t.same(again.body, NOT_FOUND, 'a second DELETE finds nothing')
})

t.test('readable but outside write_scope: PUT and DELETE are 403 naming write_scope', async (t) => {
  const { api, agente, mineClosed, status } = await setup(t)
  t.equal(
    (await api.request('GET', `/denuncias/${mineClosed._id}`, { token: agente.token })).status,
    200,
    'the read scope still reaches it',
  )
  const remove = await api.request('DELETE', `/denuncias/${mineClosed._id}`, { token: agente.token })
  t.equal(remove.status, 403)
  t.same(remove.body, OUTSIDE_WRITE_SCOPE)
  const put = await api.request('PUT', `/denuncias/${mineClosed._id}`, {
    token: agente.token,
    body: { estado: 'investigacion' },
  })
  t.equal(put.status, 403)
  t.same(put.body, OUTSIDE_WRITE_SCOPE)
  t.equal(await status(mineClosed._id), 200, 'not deleted')
  const after = await api.request('GET', `/denuncias/${mineClosed._id}`, { token: await api.adminToken() })
  t.equal(after.body.data.estado, 'archivada', 'not changed')
  t.equal(after.body.data._version, 2)
})

t.test('write_scope does not narrow reads: the list still holds every record of the scope', async (t) => {
  const { api, agente, mine, mineClosed } = await setup(t)
  const list = await api.request('GET', '/denuncias', { token: agente.token })
  t.same(list.body.data.records.map((r: { _id: string }) => r._id).sort(), [mine._id, mineClosed._id].sort())
  t.equal(list.body.data.total, 2)
})
