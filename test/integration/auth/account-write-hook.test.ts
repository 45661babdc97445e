// The accounts module's rule (D21 and the username and password rules) is a write hook the store
// runs inside the write's transaction, on the row it locked: what it decides on is what the
// write writes over, never a copy read before (D13).
import t from 'tap'
import type { RecordStore, WriteHook } from '../../../src/db/records/types.js'
import { validationFailed } from '../../../src/errors.js'
import { startTestApi } from '../../helpers/api.js'
import { assertError } from './envelope.js'

const FORBIDDEN = 'Sin permisos para esta operación'

t.test('D21: a role raised between the request and its write is the one the guard sees', async (t) => {
  const api = await startTestApi(t)
  const { service } = api
  const accounts = service.spec.accounts.spec
  const admin = await api.userWithRole('administrador')
  const operator = { actor: 'sistema', reveal: false, user: null } as const
  // Another writer makes the target a superadmin just before this request's write locks the row:
  // deterministic, as the store's own write is what the route calls last.
  const store = service.store as { -readonly [K in keyof RecordStore]: RecordStore[K] }
  const { update, remove } = store
  let raise: string | undefined
  const raiseFirst = async (id: string) => {
    if (raise !== id) return
    raise = undefined
    await update(accounts, id, { rol: 'superadmin' }, operator)
  }
  store.update = async (spec, id, changes, options) => {
    if (spec === accounts) await raiseFirst(id)
    return update(spec, id, changes, options)
  }
  store.remove = async (spec, id, options) => {
    if (spec === accounts) await raiseFirst(id)
    return remove(spec, id, options)
  }
  t.teardown(() => {
    store.update = update
    store.remove = remove
  })
  const token = await api.adminToken()
  const target = async () => (await api.userWithRole('consulta')).id

  const edited = await target()
  raise = edited
  assertError(
    t,
    await api.request('PUT', `/usuarios/${edited}`, { token: admin.token, body: { nombre: 'Cambiado' } }),
    403,
    FORBIDDEN,
    'PUT: refused on the superadmin it would have written over',
  )
  t.match((await api.request('GET', `/usuarios/${edited}`, { token })).body.data, {
    rol: 'superadmin',
    nombre: 'Usuario consulta',
  })

  const deleted = await target()
  raise = deleted
  assertError(
    t,
    await api.request('DELETE', `/usuarios/${deleted}`, { token: admin.token }),
    403,
    FORBIDDEN,
    'DELETE: refused on the superadmin it would have deleted',
  )
  t.equal((await api.request('GET', `/usuarios/${deleted}`, { token })).status, 200, 'still there')

  // Without the raise the same requests pass: the refusal above was the raise's.
  const other = await target()
  t.equal(
    (await api.request('PUT', `/usuarios/${other}`, { token: admin.token, body: { nombre: 'Cambiado' } })).status,
    200,
  )
  t.equal((await api.request('DELETE', `/usuarios/${other}`, { token: admin.token })).status, 200)
})

t.test('a write hook runs in the transaction: on the locked row, its refusal writes nothing', async (t) => {
  const api = await startTestApi(t)
  const { store } = api.service
  const accounts = api.service.spec.accounts.spec
  const token = await api.adminToken()
  const { id, username, password } = await api.userWithRole('consulta')
  const operator = { actor: 'sistema', reveal: false, user: null } as const
  const version = async () => (await api.request('GET', `/usuarios/${id}`, { token })).body.data._version as number

  const seen: unknown[] = []
  const refuse: WriteHook = (change) => {
    seen.push(change)
    throw validationFailed([{ field: 'nombre', message: 'rechazado por la regla del módulo' }])
  }
  const before = await version()
  await t.rejects(store.update(accounts, id, { nombre: 'Otro' }, { ...operator, hook: refuse }), {
    message: /rechazado por la regla del módulo/,
  })
  await t.rejects(store.remove(accounts, id, { ...operator, hook: refuse }), {
    message: /rechazado por la regla del módulo/,
  })
  t.match(seen, [
    { action: 'editar', before: { _id: id, _version: before, nombre: 'Usuario consulta' }, after: { nombre: 'Otro' } },
    { action: 'eliminar', before: { _id: id, _version: before }, after: undefined },
  ])
  t.equal(await version(), before, 'nothing written')
  for (const action of ['editar', 'eliminar'])
    t.equal(
      (await api.request('GET', `/auditoria?registro=${id}&accion=${action}`, { token })).body.data.total,
      0,
      `no '${action}' audited`,
    )

  // What a hook returns is what is written: a password it changes is hashed again.
  const adjust: WriteHook = ({ after }) => ({ ...after, nombre: 'Ajustado', password: `${password}-ajustada` })
  const written = await store.update(accounts, id, { nombre: 'Otro', password }, { ...operator, hook: adjust })
  t.equal(written['nombre'], 'Ajustado')
  t.equal((await api.request('POST', '/auth/login', { body: { username, password } })).status, 401)
  const login = await api.request('POST', '/auth/login', { body: { username, password: `${password}-ajustada` } })
  t.equal(login.status, 200, 'the password the hook wrote')
  // A hook that keeps the password sent keeps its hash made before the transaction.
  const keep: WriteHook = ({ after }) => ({ ...after })
  await store.update(accounts, id, { password: `${password}-otra` }, { ...operator, hook: keep })
  t.equal((await api.request('POST', '/auth/login', { body: { username, password: `${password}-otra` } })).status, 200)
})
