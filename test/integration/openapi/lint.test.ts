// The served OpenAPI document passes Redocly's strict ruleset (openapi-lint.yaml) with no error.
import { execFile } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { startTestApi } from '../../helpers/api.js'

const ROOT = new URL('../../../', import.meta.url).pathname
const REDOCLY = join(ROOT, 'node_modules/@redocly/cli/bin/cli.js')

t.test('the served document lints clean under recommended-strict', async (t) => {
  const api = await startTestApi(t)
  const reply = await api.request('GET', '/openapi.json')
  // The path is the one .redocly.lint-ignore.yaml names (its one entry says why).
  mkdirSync(join(ROOT, 'test-artifacts'), { recursive: true })
  writeFileSync(join(ROOT, 'test-artifacts/openapi.json'), JSON.stringify(reply.body, null, 2))
  const run = await promisify(execFile)(
    process.execPath,
    [REDOCLY, 'lint', 'test-artifacts/openapi.json', '--config=openapi-lint.yaml', '--format=json'],
    {
      cwd: ROOT,
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
    },
  ).catch((error: { stdout?: string; stderr?: string; code?: number }) => ({
    stdout: error.stdout ?? '',
    stderr: `${error.stderr ?? ''} (exit ${error.code})`,
  }))
  const start = run.stdout.indexOf('{')
  const report = JSON.parse(run.stdout.slice(start)) as {
    totals: { errors: number; warnings: number; ignored: number }
    problems: { ruleId: string; message: string; location: { pointer: string }[] }[]
  }
  const problems = report.problems.map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`)
  t.same(problems, [], 'no problem reported')
  t.equal(report.totals.errors, 0, 'no errors')
  t.equal(report.totals.warnings, 0, 'no warnings (the strict ruleset makes them errors anyway)')
  t.equal(report.totals.ignored, 1, 'only the one documented exception (/health has no 4xx)')
})
