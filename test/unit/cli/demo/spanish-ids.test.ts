// The identifiers `records demo` writes pass the checks a Spanish reader would make.
import t from 'tap'
import { createRandom } from '../../../../src/cli/demo/seeded-random.js'
import { isValidDni, randomDni, randomPlate, randomVin } from '../../../../src/cli/demo/spanish-ids.js'
import { renderTemplate } from '../../../../src/cli/demo/demo-data.js'

t.test('a DNI check letter is the number modulo 23 in the official table', async (t) => {
  t.ok(isValidDni('12345678Z'), 'the textbook example')
  t.ok(isValidDni('00000000T'))
  t.notOk(isValidDni('12345678A'), 'a wrong letter')
  const random = createRandom('dni')
  for (let i = 0; i < 200; i += 1) t.ok(isValidDni(randomDni(random)))
})

t.test('plates have four digits and three consonants; a VIN has no I, O or Q', async (t) => {
  const random = createRandom('plates')
  for (let i = 0; i < 100; i += 1) {
    t.match(randomPlate(random), /^\d{4}[BCDFGHJKLMNPRSTVWXYZ]{3}$/)
    t.match(randomVin(random), /^[A-HJ-NPR-Z0-9]{17}$/)
  }
})

t.test('the same seed draws the same values; templates fill lists, counters and dates', async (t) => {
  const data = { lists: new Map([['nombres', ['Ana', 'Luis']]]), fields: new Map() }
  const now = new Date('2026-06-15T10:00:00Z')
  const draw = (seed: string) => renderTemplate(data, '{nombres} {dni} {n:5} {date:1-2}', createRandom(seed), 7, now)
  t.equal(draw('a'), draw('a'))
  t.match(draw('a'), /^(Ana|Luis) \d{8}[A-Z] 00007 (2024|2025)-\d{2}-\d{2}$/)
  t.throws(() => renderTemplate(data, '{calles}', createRandom('x'), 1, now), /no hay una lista 'calles'/)
})
