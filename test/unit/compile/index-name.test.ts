// The names of composite indexes (issue #7): readable when they can be, unique, at most 63 bytes.
import t from 'tap'
import { compositeIndexName } from '../../../src/compile/index-name.js'

t.test('a short name is the table and its fields, joined by __, after cx_', async (t) => {
  t.equal(compositeIndexName('denuncias', ['estado', 'prioridad']), 'cx_denuncias__estado__prioridad')
  t.equal(compositeIndexName('denuncias', ['prioridad', 'estado']), 'cx_denuncias__prioridad__estado', 'order matters')
})

t.test('names that could be read two ways end in a hash, so they differ', async (t) => {
  const one = compositeIndexName('t', ['a__b', 'c'])
  const other = compositeIndexName('t', ['a', 'b__c'])
  t.match(one, /^cx_t__a__b__c_[0-9a-f]{8}$/)
  t.match(other, /^cx_t__a__b__c_[0-9a-f]{8}$/)
  t.not(one, other)
})

t.test('PostgreSQL identifiers: a long name is cut by bytes (ñ is two) and ends in a hash', async (t) => {
  const name = compositeIndexName('ñaña'.repeat(9), ['ñoño_ñoño_ñoño', 'ñu'])
  t.equal(Buffer.byteLength(name), 63)
  t.match(name, /^cx_(ña)+_[0-9a-f]{8}$/, 'no character is cut in half')
  t.equal(compositeIndexName('ñaña'.repeat(9), ['ñoño_ñoño_ñoño', 'ñu']), name, 'deterministic')
  t.not(compositeIndexName('ñaña'.repeat(9), ['ñoño_ñoño_ñoño', 'ñi']), name, 'another field list, another hash')
})
