// On a terminal the password is asked twice with echo off (never argv, never shown).
// Node has no pseudo-terminal of its own: Python's pty module gives the binary a real one.
import { spawnSync } from 'node:child_process'
import t from 'tap'
import { BIN, createCli } from './support.js'

const DRIVER = `
import os, pty, sys, time
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
out = b''
def wait_for(text, count):
    global out
    end = time.time() + 60
    while out.count(text) < count and time.time() < end:
        try: out += os.read(fd, 1024)
        except OSError: return
for i, answer in enumerate(sys.stdin.read().split(',')):
    wait_for(b': ', i + 1)
    os.write(fd, answer.encode() + b'\\r')
    time.sleep(0.5)
try:
    while True:
        chunk = os.read(fd, 1024)
        if not chunk: break
        out += chunk
except OSError: pass
sys.stdout.write(out.decode())
`

const python = spawnSync('python3', ['--version']).status === 0

t.test(
  'the prompt does not echo, asks twice and refuses a mismatch',
  { skip: python ? false : 'python3 (pty) not available' },
  async (t) => {
    const cli = createCli(t)
    const run = (username: string, answers: string) =>
      spawnSync(
        'python3',
        ['-c', DRIVER, process.execPath, BIN, 'user', 'add', username, '--role', 'agente', '--field', 'nombre=T'],
        {
          cwd: cli.dataDir,
          env: { ...process.env, ...cli.env },
          input: answers,
          encoding: 'utf8',
        },
      )
    const ok = run('tty1', 'clave-terminal-1,clave-terminal-1')
    t.match(ok.stdout, /^Contraseña: \r\nRepita la contraseña: \r\nCuenta creada: 'tty1'/)
    t.notMatch(ok.stdout, /clave-terminal/, 'the typed password is never echoed')
    const mismatch = run('tty2', 'clave-terminal-1,otra-clave-2')
    t.match(mismatch.stdout, /records: Las contraseñas no coinciden/)
    t.match((await cli.run(['user', 'list'])).stdout, /tty1/)
    t.notMatch((await cli.run(['user', 'list'])).stdout, /tty2/)
  },
)
