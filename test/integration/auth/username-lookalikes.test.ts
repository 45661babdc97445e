// F8: usernames that look like another cannot coexist. The canonical form is NFKC without
// invisible code points (so full-width letters, zero-width spaces, soft hyphens and bidi marks
// and controls fold into the visible name: 409), and a username may hold only Latin letters
// (a-z and Spain's accented ones), digits, '.', '_' and '-' (so a Cyrillic `а` or a Greek `ο`
// among Latin letters is a 400 naming `username`). Login under a look-alike never reaches
// another account. Accounts kept from before the rule still log in and are named at start.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { ADMIN, startTestApi } from '../../helpers/api.js'
import { captureLogs } from '../protection/support.js'
import { assertError } from './envelope.js'

const PASSWORD = 'guardia-de-tarde-7'
const account = (username: string) => ({ username, password: PASSWORD, nombre: 'Persona de prueba', rol: 'consulta' })

/** Each spelling of `admin` that looks like it, and what a write of it must answer. */
const LOOK_ALIKES: readonly (readonly [string, string, 400 | 409])[] = [
  ['Cyrillic а (U+0430)', '\u0430dmin', 400],
  ['Greek ο (U+03BF) for root', 'r\u03bfot', 400],
  ['zero-width space', 'ad\u200bmin', 409],
  ['zero-width joiner', 'adm\u200din', 409],
  ['full-width letters', '\uff41\uff44\uff4d\uff49\uff4e', 409],
  ['soft hyphen', 'ad\u00admin', 409],
  ['right-to-left mark', '\u200fadmin', 409],
  ['left-to-right mark', 'admin\u200e', 409],
  ['right-to-left override', '\u202eadmin', 409],
  ['byte order mark', '\ufeffadmin', 409],
]

t.test('F8: a look-alike of an existing username is refused on create, update and login', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  t.equal((await api.request('POST', '/usuarios', { token, body: account('root') })).status, 201)
  const other = await api.request('POST', '/usuarios', { token, body: account('otra') })
  const otherId = other.body.data._id as string
  for (const [name, username, status] of LOOK_ALIKES) {
    const created = await api.request('POST', '/usuarios', { token, body: account(username) })
    if (status === 400) {
      assertError(t, created, 400, /^Datos inválidos: El campo 'username' solo admite letras latinas/, name)
      t.match(created.body.details, [{ field: 'username', message: /no admite '.', U\+(0430|03BF)\)$/ }], name)
    } else assertError(t, created, 409, /username/, `${name}: the same username as admin`)
    const renamed = await api.request('PUT', `/usuarios/${otherId}`, { token, body: { username } })
    t.equal(renamed.status, status, `${name}: nor by an update`)
    const login = (password: string) => api.request('POST', '/auth/login', { body: { username, password } })
    if (status === 400)
      for (const password of [ADMIN.password, PASSWORD])
        t.equal((await login(password)).status, 401, `${name}: login under it reaches no account`)
    else t.equal((await login(ADMIN.password)).status, 200, `${name}: login under it is the visible name's own account`)
  }
  const list = await api.request('GET', '/usuarios?limit=100', { token })
  t.same(
    list.body.data.records.map((r: Record<string, unknown>) => r['username']).sort(),
    ['admin', 'otra', 'root'],
    'no look-alike account was created',
  )
})

t.test('F8: names in the rule: Spanish letters, digits, dot, underscore and hyphen', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  for (const username of ['maría.núñez', 'jordi_puigç', 'agente-0427', 'ÀLEX.GÜELL', 'ｊｇａｒｃｉａ2'])
    t.equal((await api.request('POST', '/usuarios', { token, body: account(username) })).status, 201, username)
  for (const username of ['juan garcía', 'juan@policia.es', '.oculto', 'straße', 'i\u0307ñigo'])
    assertError(
      t,
      await api.request('POST', '/usuarios', { token, body: account(username) }),
      400,
      /El campo 'username' solo admite/,
      JSON.stringify(username),
    )
})

t.test('F8: an account kept from before the rule still logs in, is named at start and can be renamed', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'records-lookalikes-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const first = await startTestApi(t, { dataDir })
  // The record store takes any username: the shape of data written by an earlier version.
  const old = await first.service.store.create(first.service.spec.accounts.spec, account('\u0430na'), {
    actor: 'sistema',
    reveal: false,
    user: null,
  })
  const id = String(old['_id'])
  const logs = captureLogs()
  const second = await startTestApi(t, { dataDir, logger: { level: 'warn', stream: logs.stream } })
  const warned = logs
    .text()
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l['event'] === 'usuario_fuera_de_regla')
  t.equal(warned.length, 1, 'one warning at start')
  t.match(warned[0], { level: 40, msg: new RegExp(`${id}.*'\u0430na'.*U\\+0430.*records user rename ${id}`) })
  const login = await second.request('POST', '/auth/login', { body: { username: '\u0430na', password: PASSWORD } })
  t.equal(login.status, 200, 'its owner is not locked out')
  const token = await second.adminToken()
  const kept = await second.request('PUT', `/usuarios/${id}`, { token, body: { username: '\u0430na', nombre: 'Ana' } })
  t.equal(kept.status, 200, 'an update that keeps its username is not refused')
  const renamed = await second.request('PUT', `/usuarios/${id}`, { token, body: { username: 'ana' } })
  t.equal(renamed.status, 200, 'and it can be renamed into the rule')
})
