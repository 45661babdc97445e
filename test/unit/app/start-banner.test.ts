// What `npm start` prints: the console's address (D44, D46) only when it is served.
import t from 'tap'
import { bannerLines } from '../../../src/app/start-banner.js'

const options = {
  base: 'http://127.0.0.1:3000/api',
  version: '0.1.0',
  database: 'data/records.db',
  username: 'admin',
  password: undefined,
  created: false,
}

t.test('the console line, between the API and its docs, when the console is served', async (t) => {
  const lines = bannerLines({ ...options, console: true })
  const at = lines.indexOf('  Consola        http://127.0.0.1:3000/api/consola/')
  t.ok(at > 0)
  t.match(lines[at - 1], /^ {2}API /)
  t.match(lines[at + 1], /^ {2}Documentación /)
  t.notOk(
    bannerLines({ ...options, console: false }).some((line) => line.includes('Consola')),
    'CONSOLE_ENABLED=false',
  )
})
