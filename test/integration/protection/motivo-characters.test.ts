// F1, F7 (second outside audit): an X-Motivo that decodes to a NUL, another control character,
// a bidirectional mark or nothing visible is a 400 naming X-Motivo, before anything is read; the
// consultation log keeps working afterwards (on PostgreSQL a NUL used to stop every later batch).
import t from 'tap'
import { startTestApi, VALID } from '../../helpers/api.js'
import { auditRows, eventually } from './support.js'

const REFUSED: readonly [string, string, RegExp][] = [
  ['a%00b', 'NUL, percent-encoded', /caracteres de control/],
  ['%00', 'a lone NUL', /caracteres de control/],
  ['a%0Ab', 'a line feed', /caracteres de control/],
  ['a%0D%0Ab', 'CR LF', /caracteres de control/],
  ['a%1Bb', 'ESC', /caracteres de control/],
  ['a%7Fb', 'DEL', /caracteres de control/],
  ['a%C2%85b', 'NEL (C1)', /caracteres de control/],
  ['a%E2%80%A8b', 'line separator', /caracteres de control/],
  ['Diligencias%20%E2%80%AEabc', 'right-to-left override', /dirección del texto/],
  ['a%E2%81%A6b%E2%81%A9', 'isolate', /dirección del texto/],
  ['a%E2%80%8Fb', 'right-to-left mark', /dirección del texto/],
  ['a%D8%9Cb', 'Arabic letter mark', /dirección del texto/],
  ['%E2%80%8B', 'a zero-width space', /ningún carácter visible/],
  ['%C2%AD%EF%BB%BF%E2%80%8D', 'soft hyphen, BOM, zero-width joiner', /ningún carácter visible/],
  ['%20%20%C2%A0', 'spaces, no-break space', /ningún carácter visible/],
  ['%E3%85%A4', 'a Hangul filler', /ningún carácter visible/],
]

t.test('F1, F7: a motivo with control, bidirectional or only invisible characters is a 400', async (t) => {
  const api = await startTestApi(t)
  const denuncia = await api.create('denuncias', VALID['denuncias']!())
  const consulta = await api.userWithRole('consulta')
  const read = (motivo: string) =>
    api.request('GET', `/denuncias/${denuncia._id}`, { token: consulta.token, headers: { 'x-motivo': motivo } })

  for (const [motivo, what, message] of REFUSED) {
    const reply = await read(motivo)
    t.equal(reply.status, 400, `${what}: 400`)
    t.equal(reply.body.success, false, `${what}: the envelope`)
    t.match(reply.body.details, [{ field: 'X-Motivo', message }], `${what}: the detail names X-Motivo`)
    t.match(reply.body.error, /^Datos inválidos: El motivo \(cabecera X-Motivo\)/)
  }
  const accepted = await read('Diligencias%20123%2F2026%09%E2%80%94%20comprobaci%C3%B3n')
  t.equal(accepted.status, 200, 'an ordinary motivo, with a tab and accents, still reads')
  const emoji = await read('Revisi%C3%B3n%20%F0%9F%9A%93%20%D7%A9%D7%9C%D7%95%D7%9D')
  t.equal(emoji.status, 200, 'an emoji and Hebrew letters are visible text')

  const rows = await eventually(
    () => auditRows(api),
    (r) => r.filter((e) => e['action'] === 'consultar').length >= 2,
  )
  const motivos = rows.filter((e) => e['action'] === 'consultar').map((e) => e['motivo'])
  t.same(
    motivos,
    ['Diligencias 123/2026 — comprobación', 'Revisión 🚓 שלום'],
    'only the accepted reads are logged, the tab made a space, and the log goes on after a%00b',
  )
})

t.test('F1: an empty X-Motivo still counts as none', async (t) => {
  const api = await startTestApi(t)
  const denuncia = await api.create('denuncias', VALID['denuncias']!())
  const consulta = await api.userWithRole('consulta')
  const reply = await api.request('GET', `/denuncias/${denuncia._id}`, {
    token: consulta.token,
    headers: { 'x-motivo': '' },
  })
  t.equal(reply.status, 200)
})
