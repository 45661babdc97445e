// npm run bench's options: what they are (USAGE) and the values they give, checked before the
// bench starts anything. A wrong one throws its reason; bench.ts prints it with the usage.
import { parseArgs } from 'node:util'
import { DEFAULT_ADMIN_URL, type DatabaseKind } from './database.js'
import { parseInstances } from './instances.js'

export const USAGE = `Usage: npm run bench -- [options]   (docs/performance.md, "Running it")
  npm run bench                                  10,000 denuncias, 3 rounds of 5 s per scenario
  npm run bench -- --seed api                    seeded through the HTTP API (default: bulk)
  npm run bench -- --no-peer                     without Platformatic
  npm run bench -- --records 10000,1000000       the same at each size, plus growth ratios
  npm run bench -- --duration 10 --rounds 5 --json --profile
  npm run bench -- --database postgres           the same on a fresh PostgreSQL database
  npm run bench -- --database-url postgres://postgres@127.0.0.1:5432/test   (its admin URL)
  npm run bench -- --records 10000,1000000 --scenarios S6   a scoped agente's list against superadmin's
  npm run bench -- --database postgres --scenarios S4 --instances 1,3   1 and 3 service instances on
                                                 one database, side by side, and S4's lock waits
  npm run bench -- --record-keys-only --records 2000 --duration 2   per-record keys (D41) on vs off:
                                                 S1, S2, S4 in process, two installations seeded alike
  npm run bench -- --upload-only --upload-mb 200   only the evidence file's memory (D43): 200 MiB up and
                                                 down (--upload-mb 0 leaves it out of a full run)
  npm run bench -- --console-only --rounds 10      only the console (D44): its compressed size, the first
                                                 screen and the signed-in module list in Chromium`

const BENCH_OPTIONS = {
  records: { type: 'string', default: '10000' },
  rounds: { type: 'string', default: '3' },
  duration: { type: 'string', default: '5' },
  warmup: { type: 'string', default: '1' },
  connections: { type: 'string', default: '10' },
  scenarios: { type: 'string', default: 'S1,S2,S2f,S3,S4,S5,S6' },
  json: { type: 'boolean', default: false },
  profile: { type: 'boolean', default: false },
  database: { type: 'string' },
  'start-runs': { type: 'string', default: '3' },
  'database-url': { type: 'string' },
  seed: { type: 'string', default: 'bulk' },
  'no-peer': { type: 'boolean', default: false },
  'startup-rounds': { type: 'string', default: '3' },
  // Only the scenarios: no live feed, consultation cost, in-process list page or start per size.
  'no-extras': { type: 'boolean', default: false },
  instances: { type: 'string', default: '1' },
  // The evidence file's size for the upload and download memory extra (D43); 0 leaves it out.
  'upload-mb': { type: 'string', default: '200' },
  // Only that extra: no seed, scenarios, peer, other extras or npm start runs.
  'upload-only': { type: 'boolean', default: false },
  // Only the per-record keys' cost (D41): S1, S2 and S4 with record keys on and off, in one run.
  'record-keys-only': { type: 'boolean', default: false },
  // Only the console (D44): size and first screen in Chromium, --rounds fresh browser contexts.
  'console-only': { type: 'boolean', default: false },
  help: { type: 'boolean', default: false },
} as const

/** The options of `argv`, or a thrown reason: unknown ones, and values the bench cannot run with. */
export function benchArgs(argv: readonly string[]) {
  const args = parseArgs({ args: [...argv], options: BENCH_OPTIONS }).values
  // --database-url alone means PostgreSQL; it is the admin URL the bench creates its database from.
  const databaseKind = (args.database ?? (args['database-url'] === undefined ? 'sqlite' : 'postgres')) as DatabaseKind
  if (databaseKind !== 'sqlite' && databaseKind !== 'postgres')
    throw new Error(`--database must be sqlite or postgres, not ${String(args.database)}`)
  const seedMode = String(args.seed)
  if (seedMode !== 'bulk' && seedMode !== 'api') throw new Error(`--seed must be bulk or api, not ${seedMode}`)
  const uploadMiB = Number(args['upload-mb'])
  if (!(uploadMiB >= 0)) throw new Error(`--upload-mb must be a number of MiB, not ${String(args['upload-mb'])}`)
  return {
    args,
    databaseKind,
    adminUrl: args['database-url'] ?? DEFAULT_ADMIN_URL,
    instanceCounts: parseInstances(String(args.instances), databaseKind),
    seedMode,
    uploadMiB,
  }
}
