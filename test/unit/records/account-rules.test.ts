// F8: the canonical form of a username folds look-alikes made of compatibility forms and
// invisible code points; the safe alphabet refuses other scripts' look-alikes.
import t from 'tap'
import { canonicalUsername, usernameProblem } from '../../../src/records/account-rules.js'

t.test('F8: full-width, invisible and bidi characters fold into the visible name', async (t) => {
  const cases: readonly (readonly [string, string])[] = [
    ['\uff41\uff44\uff4d\uff49\uff4e', 'admin'],
    ['ad\u200bmin', 'admin'],
    ['ad\u200cm\u200din', 'admin'],
    ['ad\u00admin', 'admin'],
    ['\ufeffadmin', 'admin'],
    ['\u200fadmin\u200e', 'admin'],
    ['\u202eadmin\u202c', 'admin'],
    ['\u2066admin\u2069', 'admin'],
    [' Mari\u0301a\u3000', 'mar\u00eda'],
    ['ADMIN', 'admin'],
  ]
  for (const [typed, canonical] of cases) t.equal(canonicalUsername(typed), canonical, JSON.stringify(typed))
})

t.test('F8: only Latin letters, digits, dot, underscore and hyphen, from a letter or digit', async (t) => {
  for (const ok of ['admin', 'maría.núñez', 'jordi_puigç', 'agente-0427', '0427', 'àlex.güell'])
    t.equal(usernameProblem(ok, 'username'), undefined, ok)
  const refused: readonly (readonly [string, RegExp])[] = [
    ['\u0430dmin', /no admite 'а', U\+0430\)$/],
    ['r\u03bfot', /no admite 'ο', U\+03BF\)$/],
    ['juan garcía', /no admite ' ', U\+0020\)$/],
    ['juan@policia.es', /U\+0040/],
    ['.oculto', /empieza por una letra o una cifra$/],
    ['straße', /U\+00DF/],
  ]
  for (const [username, why] of refused) t.match(usernameProblem(username, 'username'), why, JSON.stringify(username))
  t.match(usernameProblem('\u0430dmin', 'username'), /^El campo 'username' solo admite letras latinas/)
})
