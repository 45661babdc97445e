// D41: the query of GET /interesados: `valor` required, a page as lists have, every problem at
// once as one 400, and no message repeating the identifier. Pure.
import t from 'tap'
import { isAppError } from '../../../src/errors.js'
import { parseSubjectQuery, SUBJECT_VALUE_MAX_LENGTH } from '../../../src/records/subject-query.js'

const LIMITS = { defaultLimit: 100, maxLimit: 1000, maxFilters: 20 }
const DNI = '12345678Z'

function refusal(run: () => unknown): { status: number; error: string; fields: unknown[]; text: string } {
  try {
    run()
  } catch (error) {
    if (isAppError(error))
      return {
        status: error.statusCode,
        error: error.message,
        fields: (error.details ?? []).map((d) => d.field),
        text: JSON.stringify({ message: error.message, details: error.details }),
      }
    throw error
  }
  throw new Error('not refused')
}

t.test('D41: valor as given (not trimmed nor folded) and the default page', async (t) => {
  t.same(parseSubjectQuery({ valor: ' x1 ' }, LIMITS), { value: ' x1 ', limit: 100, offset: 0 })
  t.same(parseSubjectQuery({ valor: DNI, limit: '5000', offset: '3' }, LIMITS), {
    value: DNI,
    limit: 1000,
    offset: 3,
  })
})

t.test('D41: without valor, 400 Datos requeridos naming it and any other problem', async (t) => {
  for (const query of [{}, { valor: '' }, { valor: '   ' }])
    t.match(
      refusal(() => parseSubjectQuery(query, LIMITS)),
      { status: 400, error: 'Datos requeridos', fields: ['valor'] },
    )
  t.match(
    refusal(() => parseSubjectQuery({ modulo: 'x' }, LIMITS)),
    { fields: ['modulo', 'valor'] },
  )
})

t.test('D41: repeated or overlong valor, unknown parameters, bad pages: 400 without the identifier', async (t) => {
  const cases = [
    { valor: [DNI, DNI] },
    { valor: `${DNI}${'9'.repeat(SUBJECT_VALUE_MAX_LENGTH)}` },
    { valor: DNI, dni: DNI },
    { valor: DNI, limit: '0' },
    { valor: DNI, offset: 'x' },
  ]
  for (const query of cases) {
    const refused = refusal(() => parseSubjectQuery(query, LIMITS))
    t.match(refused, { status: 400, error: /^Datos inválidos: / }, JSON.stringify(Object.keys(query)))
    t.notOk(refused.text.includes(DNI), 'the identifier is not repeated')
  }
})
