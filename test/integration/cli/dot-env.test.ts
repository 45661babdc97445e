// `records` reads `.env` in its working directory, as `npm start` does (src/cli/main.ts): what
// the file sets reaches the command, and a variable the environment already has, even empty,
// wins over it. Through the binary: loading `.env` is the process's part, not runCli's.
import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { REPO_MODULES } from '../../helpers/api.js'
import { BIN } from './support.js'

const { MODULES_FILE: _unset, ...outside } = process.env

t.test('records validate takes MODULES_FILE from .env unless the environment sets it', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'records-dotenv-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, 'roto.yaml'), 'modules: [\n')
  writeFileSync(join(dir, '.env'), `MODULES_FILE=${join(dir, 'roto.yaml')}\n`)
  copyFileSync(REPO_MODULES, join(dir, 'modules.yaml'))
  const validate = (env: Record<string, string | undefined>) =>
    spawnSync(process.execPath, [BIN, 'validate'], { cwd: dir, env, encoding: 'utf8' })

  const fromFile = validate(outside)
  t.equal(fromFile.status, 1, 'the broken file .env names is the one checked')
  t.match(fromFile.stdout + fromFile.stderr, 'roto.yaml')
  t.equal(validate({ ...outside, MODULES_FILE: REPO_MODULES }).status, 0, 'a variable set wins over .env')
  const empty = validate({ ...outside, MODULES_FILE: '' })
  t.equal(empty.status, 0, 'set but empty also wins: ./modules.yaml, the default, is checked')
})
