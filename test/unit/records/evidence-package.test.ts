// D43: the court package's paths for uploaded names. Pure: each name becomes one safe last part of
// a zip path, whatever it holds.
import t from 'tap'
import { packagedPath } from '../../../src/records/evidence-package.js'

const lastPart = (name: string): string => packagedPath('pruebas', 1, name).slice('ficheros/pruebas/1-'.length)
const wellFormed = (text: string): boolean => Buffer.from(text, 'utf8').toString('utf8') === text

t.test('a long name is cut by code point, never inside a surrogate pair', async (t) => {
  for (const prefix of ['', 'a']) {
    const cut = lastPart(`${prefix}${'😀'.repeat(200)}.pdf`)
    t.ok(wellFormed(cut), `well formed after ${prefix.length} ASCII character(s)`)
    t.equal([...cut].length, 180)
  }
})

t.test('characters a file system or a reader would take otherwise are replaced', async (t) => {
  t.equal(lastPart('a<b>c"d|e?f*g.pdf'), 'a_b_c_d_e_f_g.pdf')
  t.equal(lastPart('informe.pdf. . '), 'informe.pdf_', 'no trailing dots or spaces')
  t.equal(lastPart('foto\u202egnp.exe'), 'foto_gnp.exe', 'no right-to-left override')
  t.equal(lastPart('a\u2066b\u200fc'), 'a_b_c', 'no other bidi control')
  t.equal(lastPart('roto\ud800.pdf'), 'roto_.pdf', 'a lone surrogate')
  t.equal(lastPart('..foto:1.png'), '_foto_1.png', 'as before: not hidden, no colon')
  t.equal(lastPart(''), 'fichero')
  t.equal(lastPart('...'), '_', 'only dots')
})
