// The first minute on a terminal: `records serve` under a real pseudo-terminal
// prints readable lines and a banner with the URLs, the first superadmin's one-time password and
// a login command that logs in when pasted into a shell. Piped, the log stays JSON lines, and
// the password is never in it: it goes to DATA_DIR/admin-password (0600). Node has no pty of
// its own: Python's pty module gives one.
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { watchOutput } from '../../helpers/server-process.js'

const ROOT = new URL('../../../', import.meta.url).pathname
const BIN = join(ROOT, 'bin/records.js')

/** Runs the command on a pty, copies its output to stdout, and ends it when stdin closes. */
const DRIVER = `
import os, pty, sys, select, signal
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
while True:
    r, _, _ = select.select([fd, sys.stdin], [], [], 0.2)
    if sys.stdin in r and not sys.stdin.readline():
        break
    if fd in r:
        try: chunk = os.read(fd, 4096)
        except OSError: break
        sys.stdout.write(chunk.decode(errors='replace')); sys.stdout.flush()
os.kill(pid, signal.SIGTERM)
os.waitpid(pid, 0)
`

const python = spawnSync('python3', ['--version']).status === 0

interface Started {
  output(): string
  until(pattern: RegExp): Promise<RegExpExecArray | null>
}

function start(t: Test, dataDir: string, env: Record<string, string>, pty: boolean): Started {
  const args = [BIN, 'serve']
  const child = pty
    ? spawn('python3', ['-c', DRIVER, process.execPath, ...args], {
        cwd: dataDir,
        env: { ...process.env, ...env },
        stdio: ['pipe', 'pipe', 'pipe'],
      })
    : spawn(process.execPath, args, { cwd: dataDir, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] })
  const output = watchOutput(child)
  const exited = new Promise((resolve) => child.on('exit', resolve))
  t.teardown(async () => {
    if (pty) child.stdin.end()
    else child.kill('SIGTERM')
    await exited
  })
  return { output: output.text, until: output.until }
}

function environment(t: Test, extra: Record<string, string> = {}): { dataDir: string; env: Record<string, string> } {
  const dataDir = mkdtempSync(join(tmpdir(), 'records-console-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  return {
    dataDir,
    env: {
      DATA_DIR: dataDir,
      MODULES_FILE: join(ROOT, 'modules.yaml'),
      PORT: '0',
      ADMIN_PASSWORD: '',
      LOG_FORMAT: '',
      RECORDS_ENCRYPTION_KEY: '',
      JWT_SECRET: '',
      ...extra,
    },
  }
}

/** Pastes `command` into `shell` and returns what it printed. */
const paste = (shell: string, command: string, input = '') =>
  spawnSync(shell, ['-c', command], { input, encoding: 'utf8', timeout: 30_000 })

t.test(
  'on a terminal, a banner with the URLs, the one-time password and a login command that works when pasted',
  { skip: python ? false : 'python3 (pty) not available' },
  async (t) => {
    const { dataDir, env } = environment(t)
    const server = start(t, dataDir, env, true)
    const command = (await server.until(/^ {2}(curl -sS [^\r\n]+)\r?\n/m))?.[1]
    if (command === undefined) return t.fail(`no login command:\n${server.output()}`)
    const output = server.output()
    const base = /API +(http:\/\/127\.0\.0\.1:\d+\/api)\r?\n/.exec(output)?.[1]
    t.ok(base, 'the API URL')
    t.match(output, `Documentación  ${base}/docs`)
    t.match(output, `Salud          ${base}/health`)
    const password = /usuario 'admin', contraseña '([^']+)'/.exec(output)?.[1]
    t.ok(password, 'the generated password is shown once')
    t.notMatch(output, /"level":/, 'no JSON lines on a terminal')
    t.match(
      output,
      /\d\d:\d\d:\d\d\S* \S*AVISO\S* JWT_SECRET no estaba configurado/,
      'log lines are readable: time, level, message',
    )
    t.notMatch(command, /…|\\"/, 'no placeholders, no JSON escapes')
    for (const shell of ['sh', 'bash']) {
      const pasted = paste(shell, command)
      t.equal(pasted.status, 0, `${shell}: ${pasted.stderr}`)
      t.match(
        JSON.parse(pasted.stdout),
        { success: true, data: { token: /\S+/ } },
        `${shell}: the pasted command logs in`,
      )
    }
    const health = await fetch(`${base}/health`)
    t.equal(health.status, 200)
  },
)

t.test(
  'with ADMIN_PASSWORD the pasted command asks for the password, and logs in with it',
  { skip: python ? false : 'python3 (pty) not available' },
  async (t) => {
    const { dataDir, env } = environment(t, { ADMIN_PASSWORD: 'clave-de-consola-1', LOG_FORMAT: 'pretty' })
    const server = start(t, dataDir, env, false)
    const command = (await server.until(/^ {2}(stty -echo;[^\n]+)\n/m))?.[1]
    if (command === undefined) return t.fail(`no login command:\n${server.output()}`)
    t.notMatch(server.output(), /clave-de-consola-1/, 'a configured password is never printed')
    // eslint-disable-next-line no-control-regex -- the escape that starts a terminal colour
    t.notMatch(server.output(), /\u001b\[/, 'LOG_FORMAT=pretty without a terminal: no colours')
    const pasted = paste('sh', command, 'clave-de-consola-1\n')
    t.match(JSON.parse(pasted.stdout.slice(pasted.stdout.indexOf('{'))), { success: true, data: { token: /\S+/ } })
  },
)

t.test('piped, the log stays JSON lines; the password is in a 0600 file the log names, never in the log', async (t) => {
  const { dataDir, env } = environment(t)
  const server = start(t, dataDir, env, false)
  await server.until(/Inicie sesión: [^\n]+\n/)
  const entries = server
    .output()
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { level: number; msg: string })
  const admin = entries.find((e) => e.msg.startsWith('Primer superadministrador creado'))
  const file = join(dataDir, 'admin-password')
  t.match(admin, { level: 30, msg: `su contraseña está en ${file}` })
  const password = readFileSync(file, 'utf8').trim()
  t.notOk(server.output().includes(password), 'no log line carries the password (central logs)')
  t.match(
    entries.find((e) => e.msg.startsWith('Servicio disponible')),
    { docs: /\/api\/docs$/, health: /\/api\/health$/ },
  )
  const command = entries.find((e) => e.msg.startsWith('Inicie sesión: '))?.msg.slice('Inicie sesión: '.length) ?? ''
  const pasted = paste('sh', command, `${password}\n`).stdout
  t.match(JSON.parse(pasted.slice(pasted.indexOf('{'))), { success: true }, 'the command in the JSON line works too')
})
