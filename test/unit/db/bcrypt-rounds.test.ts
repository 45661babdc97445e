// The suite's lower bcrypt cost (records/codec.ts TEST_BCRYPT_ROUNDS) can never reach a
// production start: without the setting the cost is D22's, and the setting is refused
// outside a tap test process or with NODE_ENV=production.
import t from 'tap'
import { BCRYPT_ROUNDS, bcryptRounds, TEST_BCRYPT_ROUNDS } from '../../../src/db/records/codec.js'

t.test('without the setting every password gets the production cost, under tap or not', async (t) => {
  t.equal(BCRYPT_ROUNDS, 10)
  t.equal(bcryptRounds({}), BCRYPT_ROUNDS)
  t.equal(bcryptRounds({ TAP: '1' }), BCRYPT_ROUNDS)
  t.equal(bcryptRounds({ TAP: '1', [TEST_BCRYPT_ROUNDS]: '' }), BCRYPT_ROUNDS)
})

t.test('the setting is honoured only in a test process', async (t) => {
  t.equal(bcryptRounds({ TAP: '1', [TEST_BCRYPT_ROUNDS]: '4' }), 4)
  const refused = {
    code: 'SETTING_INVALID',
    message: /RECORDS_TEST_BCRYPT_ROUNDS solo se admite al ejecutar las pruebas/,
  }
  t.throws(() => bcryptRounds({ [TEST_BCRYPT_ROUNDS]: '4' }), refused, 'no tap: refused, not ignored')
  t.throws(() => bcryptRounds({ TAP: '0', [TEST_BCRYPT_ROUNDS]: '4' }), refused)
  t.throws(() => bcryptRounds({ TAP: '1', NODE_ENV: 'production', [TEST_BCRYPT_ROUNDS]: '4' }), refused)
})

t.test('only a cost between bcrypt minimum and the production one', async (t) => {
  for (const value of ['3', '11', '4.5', 'x'])
    t.throws(() => bcryptRounds({ TAP: '1', [TEST_BCRYPT_ROUNDS]: value }), { code: 'SETTING_INVALID' }, value)
  t.equal(bcryptRounds({ TAP: '1', [TEST_BCRYPT_ROUNDS]: '10' }), 10)
})
