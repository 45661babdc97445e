// The console of a terminal: readable log lines, and a login command whose
// JSON survives the shell whatever the password holds (the password policy may change).
import { spawnSync } from 'node:child_process'
import t from 'tap'
import { createPrettyStream, resolveLogFormat } from '../../../src/app/console-log.js'
import { loginCommand } from '../../../src/app/start-banner.js'

t.test('the pasted -d argument is exactly the JSON of the credentials, whatever the password holds', async (t) => {
  for (const password of ["it's", 'dos "comillas"', 'barra\\invertida', '$HOME y `date`', 'ñandú €', 'abc_-XYZ123']) {
    const command = loginCommand('http://127.0.0.1:3000/api', 'admin', password)
    const word = command.slice(command.indexOf(' -d ') + 4)
    const echoed = spawnSync('sh', ['-c', `printf '%s' ${word}`], { encoding: 'utf8' }).stdout
    t.same(JSON.parse(echoed), { username: 'admin', password }, password)
  }
})

t.test('LOG_FORMAT unset is pretty on a terminal only', async (t) => {
  t.equal(resolveLogFormat('auto', true), 'pretty')
  t.equal(resolveLogFormat('auto', false), 'json')
  t.equal(resolveLogFormat('json', true), 'json')
  t.equal(resolveLogFormat('pretty', false), 'pretty')
})

t.test('a request is one line, method, path, status and time; a warning reads AVISO', async (t) => {
  let out = ''
  const stream = createPrettyStream({ write: (text: string) => (out += text) }, { color: false })
  const time = new Date(2026, 10, 23, 14, 2, 11).getTime()
  stream.write(
    `${JSON.stringify({ level: 30, time, reqId: 'r1', req: { method: 'GET', path: '/api/denuncias' }, msg: 'incoming request' })}\n`,
  )
  stream.write(
    `${JSON.stringify({ level: 30, time, reqId: 'r1', res: { statusCode: 200 }, responseTime: 4.2, msg: 'request completed' })}\n`,
  )
  stream.write(`${JSON.stringify({ level: 40, time, msg: 'JWT_SECRET no estaba configurado', origin: 'x' })}\n`)
  stream.write('not json\n')
  t.equal(
    out,
    '14:02:11 INFO  GET /api/denuncias -> 200 (4 ms)\n14:02:11 AVISO JWT_SECRET no estaba configurado origin=x\nnot json\n',
  )
})
