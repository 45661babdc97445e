// npm run bench's options (scripts/bench/options.ts): a wrong one is refused with its reason
// before the bench starts anything; bench.ts prints the reason with the usage and exits 2.
import t from 'tap'
import { benchArgs, USAGE } from '../../../scripts/bench/options.js'

t.test('unknown options and values the bench cannot run with are refused with their reason', async (t) => {
  t.throws(() => benchArgs(['--bogus']), /Unknown option '--bogus'/)
  t.throws(() => benchArgs(['--database', 'mysql']), /--database must be sqlite or postgres, not mysql/)
  t.throws(() => benchArgs(['--seed', 'x']), /--seed must be bulk or api, not x/)
  t.throws(() => benchArgs(['--upload-mb', 'mucho']), /--upload-mb must be a number of MiB/)
  t.throws(() => benchArgs(['--instances', '1,1', '--database', 'postgres']), /--instances names a count twice/)
  t.throws(() => benchArgs(['--instances', '3']), /--instances above 1 needs --database postgres/)
})

t.test('the defaults, --database-url meaning PostgreSQL, and --help', async (t) => {
  t.match(benchArgs([]), { databaseKind: 'sqlite', seedMode: 'bulk', instanceCounts: [1], uploadMiB: 200 })
  t.match(benchArgs(['--database-url', 'postgres://u@h:1/d', '--instances', '1,3']), {
    databaseKind: 'postgres',
    adminUrl: 'postgres://u@h:1/d',
    instanceCounts: [1, 3],
  })
  t.equal(benchArgs(['--help']).args.help, true)
  t.match(USAGE, /^Usage: npm run bench -- \[options\]/)
})
