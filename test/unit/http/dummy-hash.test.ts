// D19: an unknown username is checked against a constant bcrypt hash that must cost what a
// real password's check costs, and must not be the hash of an empty or trivial password.
import bcrypt from 'bcryptjs'
import t from 'tap'
import { BCRYPT_ROUNDS } from '../../../src/db/records/codec.js'
import { DUMMY_HASH } from '../../../src/http/routes/session.js'

t.test('D19: the dummy hash has the cost factor of stored passwords', async (t) => {
  t.equal(bcrypt.getRounds(DUMMY_HASH), BCRYPT_ROUNDS)
  t.ok(await bcrypt.compare('municipal-records: no such user', DUMMY_HASH), 'it is the hash of the documented text')
  t.notOk(await bcrypt.compare('', DUMMY_HASH), 'not of an empty password')
})
