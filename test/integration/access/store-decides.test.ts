// Who may ask a list what it asks is the store's decision (D16, D27): a caller that goes to the
// store without a route (an export, a new path) gets the same refusals as GET /{module}.
import t from 'tap'
import { isAppError } from '../../../src/errors.js'
import { parseListQuery } from '../../../src/records/list-query.js'
import type { ActingUser } from '../../../src/records/acting-user.js'
import { startTestApi } from '../../helpers/api.js'

const refusal = (error: unknown) => (isAppError(error) ? { status: error.statusCode, details: error.details } : error)

t.test('D16, D27: store.list and store.checkList refuse without any route', async (t) => {
  const api = await startTestApi(t)
  const { store, spec } = api.service
  const denuncias = spec.moduleByName.get('denuncias')
  if (denuncias === undefined) throw new Error('denuncias missing')
  const query = (raw: Record<string, string>) => parseListQuery(denuncias, raw, spec.service.list)
  const user = (role: string): ActingUser => ({ id: `USR-0000-${role}`, role, fields: {} })
  const read = (role: string, reveal: boolean) => ({ reveal, actor: `USR-0000-${role}`, user: user(role) })

  const byDni = query({ denunciante_dni: '12345678Z' })
  const d16 = {
    status: 403,
    details: [{ field: 'permiso', message: "El rol 'consulta' no tiene el permiso 'denuncias.descifrar'" }],
  }
  t.same(
    refusal(await store.list(denuncias, byDni, read('consulta', false)).catch((e: unknown) => e)),
    d16,
    'list: D16',
  )
  t.same(
    refusal(
      (() => {
        try {
          return store.checkList(denuncias, byDni, { reveal: false, user: user('consulta') })
        } catch (error) {
          return error
        }
      })(),
    ),
    d16,
    'checkList: D16',
  )

  const hidden = {
    status: 403,
    details: [
      { field: 'observaciones', message: "El rol 'consulta' no puede leer el campo 'observaciones' (cannot_read)" },
    ],
  }
  for (const raw of [{ observaciones: 'Nota' }, { sort: '-observaciones' }] as Record<string, string>[])
    t.same(
      refusal(await store.list(denuncias, query(raw), read('consulta', false)).catch((e: unknown) => e)),
      hidden,
      `list: D27 ${JSON.stringify(raw)}`,
    )

  // Who holds descifrar (reveals) filters; the operator (no role) is held to no role's rule.
  t.same((await store.list(denuncias, byDni, read('oficial', true))).records, [], 'descifrar: filtered')
  t.same(
    (await store.list(denuncias, byDni, { reveal: false, actor: 'sistema', user: null })).records,
    [],
    'the operator: filtered',
  )
  t.doesNotThrow(() => store.checkList(denuncias, byDni, { reveal: true, user: user('oficial') }))
})
