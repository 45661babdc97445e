// The console's files at {BASE_PATH}/consola/ (D44, D46): index.html naming one hashed script
// and one hashed style sheet, each with the console's strict CSP; gzip when asked; a redirect
// from /consola; CONSOLE_ENABLED=false makes it all a 404. No browser: app.inject.
import t from 'tap'
import { CONSOLE_CSP } from '../../../src/http/routes/console.js'
import { startTestApi } from '../../helpers/api.js'
import { startServerProcess } from '../../helpers/server-process.js'
import { createCli } from '../cli/support.js'
import { buildConsole } from './support.js'

buildConsole()

t.test('index.html, its script and style, under the strict CSP', async (t) => {
  const api = await startTestApi(t)
  const page = await api.request('GET', '/consola/')
  t.equal(page.status, 200)
  t.match(page.headers['content-type'], /^text\/html/)
  t.equal(page.headers['content-security-policy'], CONSOLE_CSP)
  t.match(CONSOLE_CSP, /^default-src 'self'; script-src 'self'; style-src 'self';/)
  t.notMatch(CONSOLE_CSP, /unsafe/, 'nothing inline, no eval')
  t.equal(page.headers['cache-control'], 'no-cache', 'the page is asked for again: it names the current files')
  const script = /src="\.\/(main-[A-Z0-9]+\.js)"/.exec(page.body)?.[1]
  const style = /href="\.\/(main-[A-Z0-9]+\.css)"/.exec(page.body)?.[1]
  t.ok(script !== undefined && style !== undefined, 'one hashed script and one hashed style sheet')
  t.notMatch(page.body, /<script>|<style|style=/, 'no inline script or style in the page')
  for (const [name, type] of [
    [script, /^text\/javascript/],
    [style, /^text\/css/],
  ] as const) {
    const file = await api.request('GET', `/consola/${name}`)
    t.equal(file.status, 200, String(name))
    t.match(file.headers['content-type'], type)
    t.equal(file.headers['content-security-policy'], CONSOLE_CSP)
    t.equal(file.headers['cache-control'], 'public, max-age=31536000, immutable', 'hashed: cached for good')
    const zipped = await api.request('GET', `/consola/${name}`, { headers: { 'accept-encoding': 'gzip, br' } })
    t.equal(zipped.headers['content-encoding'], 'gzip')
    const refused = await api.request('GET', `/consola/${name}`, { headers: { 'accept-encoding': 'gzip;q=0, br' } })
    t.equal(refused.headers['content-encoding'], undefined, 'gzip;q=0 refuses gzip')
  }
  const unknown = await api.request('GET', '/consola/otro.js')
  t.equal(unknown.status, 404)
  t.equal(unknown.body.error, 'Ruta no encontrada')
  const bare = await api.request('GET', '/consola')
  t.equal(bare.status, 301)
  t.equal(bare.headers['location'], '/api/consola/')
  t.notOk(/unsafe-inline/.test(String(page.headers['content-security-policy'])))
})

t.test('CONSOLE_ENABLED=false: 404, the API as before', async (t) => {
  const api = await startTestApi(t, { env: { CONSOLE_ENABLED: 'false' } })
  for (const path of ['/consola/', '/consola']) t.equal((await api.request('GET', path)).status, 404, path)
  t.equal((await api.request('GET', '/health')).status, 200)
})

t.test('npm start (records serve from dist/, its one-file bundle) serves the console it built', async (t) => {
  const cli = createCli(t)
  const server = await startServerProcess(t, { entry: 'dist', cwd: cli.dataDir, env: cli.env })
  const page = await fetch(`${server.base}/consola/`)
  t.equal(page.status, 200, 'found from the bundle in dist/src/app/')
  const script = /src="\.\/(main-[A-Z0-9]+\.js)"/.exec(await page.text())?.[1]
  t.equal((await fetch(`${server.base}/consola/${script}`)).status, 200)
  t.match(server.output(), `${server.base}/consola/`, 'the start names the console')
  t.equal(await server.stop(), 0)
})
