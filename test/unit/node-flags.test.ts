// `npm start` runs the service with the Node flags the bench measured it with.
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import t from 'tap'
import { SERVICE_NODE_FLAGS } from '../../src/node-flags.js'

t.test('npm start passes every flag of SERVICE_NODE_FLAGS to node, before the script', async (t) => {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    scripts: Record<string, string>
  }
  const words = (pkg.scripts['start'] ?? '').split(/\s+/)
  t.equal(words[0], 'node')
  const script = words.indexOf('bin/records.js')
  t.ok(script > 0, 'the start script runs bin/records.js')
  t.ok(SERVICE_NODE_FLAGS.length > 0)
  for (const flag of SERVICE_NODE_FLAGS) {
    const at = words.indexOf(flag)
    t.ok(at > 0 && at < script, `${flag} is a node flag of npm start`)
  }
})

t.test('this node starts with every flag of SERVICE_NODE_FLAGS (V8 flags carry no promise)', async (t) => {
  const run = spawnSync(process.execPath, [...SERVICE_NODE_FLAGS, '-e', '0'], { encoding: 'utf8' })
  t.equal(run.status, 0, run.stderr)
})
