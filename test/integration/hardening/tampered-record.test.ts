// One record altered in the database behind the service's back. Its
// list page answers, the damaged value null and the record marked `_integridad` (never garbage,
// never a page silently missing a record, never the whole module unreadable), the log carries
// one fatal integrity alert naming the record, and everything else keeps serving.
import { sql } from 'kysely'
import t from 'tap'
import { startTestApi, VALID } from '../../helpers/api.js'
import { captureLogs, rawRow, tamper } from '../protection/support.js'

t.test(
  'a tampered ciphertext: marked on the pages holding it, one fatal alert naming it, the rest served',
  async (t) => {
    const logs = captureLogs()
    const api = await startTestApi(t, { logger: { level: 'info', stream: logs.stream } })
    const token = await api.adminToken()
    const consulta = await api.userWithRole('consulta')
    const good = await api.create('denuncias', { ...VALID['denuncias']!(), denunciante_dni: '11111111H' })
    const bad = await api.create('denuncias', { ...VALID['denuncias']!(), denunciante_dni: '22222222J', tipo: 'robo' })
    const stored = String((await rawRow(api, 'denuncias', bad._id))['denunciante_dni'])
    await tamper(
      api,
      sql`update denuncias set denunciante_dni = ${stored.slice(0, -4) + (stored.endsWith('AAAA') ? 'BBBB' : 'AAAA')} where _id = ${bad._id}`,
    )

    const page = await api.request('GET', '/denuncias', { token })
    t.equal(page.status, 200, 'the module stays readable')
    t.match(page.body.data.records, [
      { _id: good._id, denunciante_dni: '11111111H' },
      {
        _id: bad._id,
        denunciante_dni: null,
        tipo: 'robo',
        _integridad: 'error',
        _integridad_campos: ['denunciante_dni'],
      },
    ])
    t.equal(
      (await api.request('GET', `/denuncias/${bad._id}`, { token })).body.data._integridad,
      'error',
      'GET of it answers the same way',
    )
    const alert = logs
      .text()
      .split('\n')
      .filter((line) => line.includes('"alert":"integridad"'))
    t.equal(alert.length, 1, 'one alert line')
    t.match(alert[0], /"level":60/, 'logged as fatal')
    t.match(alert[0], new RegExp(`denuncias:${bad._id}`), 'naming the module and record')
    t.notMatch(logs.text(), /22222222J/, 'never the plaintext')

    t.equal(
      (await api.request('GET', `/denuncias?tipo=hurto`, { token })).body.data.records[0]._id,
      good._id,
      'a page without it is served',
    )
    t.equal((await api.request('GET', `/denuncias/${good._id}`, { token })).status, 200, 'other records are served')
    t.equal(
      (await api.request('GET', '/denuncias', { token: consulta.token })).status,
      200,
      'a masked reader never decrypts, so reads on (D15)',
    )
  },
)
