// The validated modules.yaml kept in DATA_DIR: reused only for the same text,
// the same build and a signature made with this installation's secret; anything else validates.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import {
  loadModulesConfig,
  readValidatedCache as cachedConfig,
  writeValidatedCache as storeConfig,
} from '../../src/config/load.js'
import { VALIDATED_CACHE_FILE, type ValidatedCache } from '../../src/config/validated-cache.js'
import type { ModulesConfig } from '../../src/config/types.js'

const MODULES = new URL('../../modules.yaml', import.meta.url).pathname
const text = readFileSync(MODULES, 'utf8')

function tempCache(t: Test): ValidatedCache {
  const dir = mkdtempSync(join(tmpdir(), 'records-validated-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return { dir, programId: '2051560:1795481471205', secret: 'a'.repeat(48) }
}

t.test('a stored validation comes back for the same text, build and secret, in a 0600 file', async (t) => {
  const cache = tempCache(t)
  const config = loadModulesConfig(MODULES)
  t.equal(cachedConfig(cache, text), undefined, 'nothing stored yet')
  storeConfig(cache, text, config)
  t.same(cachedConfig(cache, text), config)
  t.equal(statSync(join(cache.dir, VALIDATED_CACHE_FILE)).mode & 0o777, 0o600)
})

t.test('another text, another build or another secret: not reused', async (t) => {
  const cache = tempCache(t)
  storeConfig(cache, text, loadModulesConfig(MODULES))
  t.equal(cachedConfig(cache, `${text}\n# editado\n`), undefined, 'modules.yaml changed')
  t.equal(cachedConfig({ ...cache, programId: 'otra' }, text), undefined, 'the program was rebuilt')
  t.equal(cachedConfig({ ...cache, secret: 'b'.repeat(48) }, text), undefined, 'signed by another installation')
})

t.test('a file edited by hand or damaged is ignored, never trusted', async (t) => {
  const cache = tempCache(t)
  storeConfig(cache, text, loadModulesConfig(MODULES))
  const path = join(cache.dir, VALIDATED_CACHE_FILE)
  const stored = JSON.parse(readFileSync(path, 'utf8')) as { key: string; config: string; mac: string }
  const widened = JSON.parse(stored.config) as ModulesConfig
  const roles = widened.roles.map((r) => (r.name === 'consulta' ? { ...r, permissions: ['*.*'] } : r))
  writeFileSync(path, JSON.stringify({ ...stored, config: JSON.stringify({ ...widened, roles }) }))
  t.equal(cachedConfig(cache, text), undefined, 'a role widened in the file: its signature no longer fits')
  writeFileSync(path, '{"key": tru')
  t.equal(cachedConfig(cache, text), undefined, 'not JSON')
  writeFileSync(path, JSON.stringify({ ...stored, mac: 'ab' }))
  t.equal(cachedConfig(cache, text), undefined, 'a signature of the wrong length')
})

t.test('loadModulesConfig with a cache: an invalid file is refused and never stored', async (t) => {
  const cache = tempCache(t)
  const file = join(cache.dir, 'modules.yaml')
  writeFileSync(file, text)
  const first = loadModulesConfig(file, cache)
  t.same(cachedConfig(cache, text), first, 'the validation is stored')
  t.same(loadModulesConfig(file, cache), first)
  writeFileSync(file, text.replace(/prefix: DEN\b/, 'prefix: den'))
  t.throws(() => loadModulesConfig(file, cache), { code: 'CONFIG_INVALID' }, 'a changed file validates in full')
  t.same(cachedConfig(cache, text), first, 'the refused text left the stored one alone')
})

t.test('a folder that cannot be written only costs the time: no error', async (t) => {
  const cache = tempCache(t)
  const missing = { ...cache, dir: join(cache.dir, 'no', 'existe') }
  t.doesNotThrow(() => storeConfig(missing, text, loadModulesConfig(MODULES)))
  t.equal(cachedConfig(missing, text), undefined)
})
