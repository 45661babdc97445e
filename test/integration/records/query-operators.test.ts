// `campo[op]=valor` on every field type, `sort` on several fields,
// `_created` ranges, `fields=`, and every bad query a 400 naming field and operator. Table-driven
// over a fixture with one field of each type; the expected answer of every filter is computed
// from the data in JavaScript, so each operator is checked against an independent model.
import { sql } from 'kysely'
import t, { type Test } from 'tap'
import { FILTER_OPERATORS } from '../../../src/compile/field-types.js'
import { startTestApi } from '../../helpers/api.js'

const FIXTURE = new URL('../../fixtures/modules/valid/every-type.yaml', import.meta.url).pathname

type Value = string | number | boolean | null
type Kind = 'ordered' | 'boolean' | 'encrypted' | 'none'

/** Each field: how a query value converts, its probes (one stored, one between), an `in` list and bad values. */
interface FieldCase {
  readonly kind: Kind
  readonly convert: (raw: string) => Value
  readonly probes: readonly string[]
  readonly list: string
  readonly listValues: readonly Value[]
  readonly bad: readonly string[]
}

const text = (raw: string): Value => raw
const FIELDS: Readonly<Record<string, FieldCase>> = {
  texto: {
    kind: 'ordered',
    convert: text,
    probes: ['beta', 'c'],
    list: 'alfa,delta,nada',
    listValues: ['alfa', 'delta', 'nada'],
    bad: [],
  },
  // An escaped comma is part of a value.
  largo: {
    kind: 'ordered',
    convert: text,
    probes: ['dos', 'd'],
    list: 'uno\\, dos,tres',
    listValues: ['uno, dos', 'tres'],
    bad: [],
  },
  entero: {
    kind: 'ordered',
    convert: Number,
    probes: ['0', '6'],
    list: '-5,10,3',
    listValues: [-5, 10, 3],
    bad: ['x', '1.5'],
  },
  numero: {
    kind: 'ordered',
    convert: Number,
    probes: ['2.25', '1.75'],
    list: '1.5,-0.5',
    listValues: [1.5, -0.5],
    bad: ['abc'],
  },
  dia: {
    kind: 'ordered',
    convert: text,
    probes: ['2026-02-01', '2026-02-15'],
    list: '2026-01-10,2026-03-15',
    listValues: ['2026-01-10', '2026-03-15'],
    bad: ['2026-02-30', 'ayer'],
  },
  momento: {
    kind: 'ordered',
    convert: text,
    probes: ['2026-02-01 12:30:00', '2026-02-28 00:00:01'],
    list: '2026-01-10 08:00:00,2026-02-28 00:00:00',
    listValues: ['2026-01-10 08:00:00', '2026-02-28 00:00:00'],
    bad: ['2026-02-01', '2026-02-01T12:30:00'],
  },
  hora: {
    kind: 'ordered',
    convert: text,
    probes: ['12:30', '09:15'],
    list: '08:00,00:00',
    listValues: ['08:00', '00:00'],
    bad: ['25:00'],
  },
  // Strings of an enum compare as text too: alto < bajo < medio.
  nivel: {
    kind: 'ordered',
    convert: text,
    probes: ['medio', 'bajo'],
    list: 'bajo,alto',
    listValues: ['bajo', 'alto'],
    bad: ['nada'],
  },
  activo: {
    kind: 'boolean',
    convert: (raw) => raw === 'true',
    probes: ['true', 'false'],
    list: '',
    listValues: [],
    bad: ['si', '1'],
  },
  secreto: {
    kind: 'encrypted',
    convert: text,
    probes: ['zeta', 'a,b'],
    list: 'a\\,b,x',
    listValues: ['a,b', 'x'],
    bad: [],
  },
  clave: { kind: 'encrypted', convert: Number, probes: ['2', '5'], list: '1,3', listValues: [1, 3], bad: ['x'] },
  lista: { kind: 'none', convert: text, probes: ['x'], list: 'x', listValues: [], bad: [] },
}

const ALLOWED: Readonly<Record<Kind, readonly string[]>> = {
  ordered: FILTER_OPERATORS,
  boolean: ['eq', 'ne', 'null'],
  encrypted: ['eq', 'in', 'null'],
  none: [],
}

/** The records, in creation order; the last one has no values at all. */
const ROWS: readonly Record<string, unknown>[] = [
  {
    texto: 'alfa',
    largo: 'uno, dos',
    entero: -5,
    numero: 1.5,
    dia: '2026-01-10',
    momento: '2026-01-10 08:00:00',
    hora: '08:00',
    activo: true,
    nivel: 'bajo',
    secreto: 'a,b',
    clave: 1,
    lista: ['x'],
  },
  {
    texto: 'beta',
    largo: 'dos',
    entero: 0,
    numero: 2.25,
    dia: '2026-02-01',
    momento: '2026-02-01 12:30:00',
    hora: '12:30',
    activo: false,
    nivel: 'medio',
    secreto: 'zeta',
    clave: 2,
  },
  {
    texto: 'gamma',
    largo: 'tres',
    entero: 10,
    numero: 10,
    dia: '2026-03-15',
    momento: '2026-03-15 23:59:59',
    hora: '23:59',
    activo: true,
    nivel: 'alto',
    secreto: 'x',
    clave: 3,
  },
  {
    texto: 'delta',
    largo: 'cuatro',
    entero: 7,
    numero: -0.5,
    dia: '2026-02-28',
    momento: '2026-02-28 00:00:00',
    hora: '00:00',
    activo: false,
    nivel: 'medio',
    secreto: 'zeta',
    clave: 2,
  },
  {},
]

/** The model: whether a stored value matches `op` with the query value(s). */
function matches(stored: unknown, op: string, arg: Value | readonly Value[]): boolean {
  const value = (stored ?? null) as Value
  if (op === 'null') return arg === 'true' ? value === null : value !== null
  if (op === 'in') return value !== null && (arg as readonly Value[]).includes(value)
  if (op === 'ne') return value === null || value !== arg
  if (value === null) return false
  const a = arg as string | number
  const v = value as string | number
  return op === 'eq' ? v === a : op === 'gt' ? v > a : op === 'gte' ? v >= a : op === 'lt' ? v < a : v <= a
}

/** `?key=value&...`, keys and values encoded as a browser would. */
const query = (pairs: readonly [string, string][]) =>
  pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')

async function setup(t: Test) {
  let now = new Date('2026-03-01T08:00:00Z')
  const api = await startTestApi(t, { env: { MODULES_FILE: FIXTURE }, clock: () => now })
  const token = await api.adminToken()
  const ids: string[] = []
  const created: string[] = []
  for (const row of ROWS) {
    const record = await api.create('muestras', row, token)
    ids.push(record._id)
    created.push(record._created)
    now = new Date(now.getTime() + 3_600_000) // an hour apart
  }
  const get = (path: string, as = token) => api.request('GET', path, { token: as })
  /** The records a query lists, as indexes into ROWS; checks that `total` counts the same. */
  const listed = async (t: Test, pairs: readonly [string, string][], label: string): Promise<number[] | undefined> => {
    const reply = await get(`/muestras?limit=1000&${query(pairs)}`)
    if (reply.status !== 200) {
      t.fail(`${label}: ${reply.status} ${JSON.stringify(reply.body)}`)
      return undefined
    }
    t.equal(reply.body.data.total, reply.body.data.records.length, `${label}: total counts the same conditions`)
    return reply.body.data.records.map((r: { _id: string }) => ids.indexOf(r._id))
  }
  return { api, token, ids, created, get, listed }
}

// One instance and one data set for every test of the file: the machine is shared and slow.
const shared = await setup(t)

const expectedOf = (filter: (row: Record<string, unknown>) => boolean): number[] =>
  ROWS.flatMap((row, i) => (filter(row) ? [i] : []))

t.test(
  'every operator on every field type: the records of the model, or a 400 naming field and operator',
  async (t) => {
    const { get, listed } = shared
    for (const [name, field] of Object.entries(FIELDS)) {
      for (const op of FILTER_OPERATORS) {
        const args = op === 'null' ? ['true', 'false'] : op === 'in' ? [field.list] : field.probes
        for (const raw of args) {
          const key = `${name}[${op}]`
          if (!ALLOWED[field.kind].includes(op)) {
            const reply = await get(`/muestras?${query([[key, raw]])}`)
            t.equal(reply.status, 400, `${key}=${raw}: not allowed`)
            t.equal(reply.body.details?.[0]?.field, name, `${key}: the detail names the field`)
            t.match(
              reply.body.details?.[0]?.message,
              field.kind === 'none'
                ? `No se puede filtrar por '${name}'`
                : `El operador '${op}' no se admite en '${name}'`,
            )
            continue
          }
          const arg = op === 'null' ? raw : op === 'in' ? field.listValues : field.convert(raw)
          const got = await listed(t, [[key, raw]], `${key}=${raw}`)
          t.same(
            got,
            expectedOf((row) => matches(row[name], op, arg)),
            `${key}=${raw}`,
          )
        }
      }
      // Plain `campo=valor` is eq (D11).
      if (field.kind !== 'none') {
        const raw = field.probes[0] as string
        t.same(await listed(t, [[name, raw]], `${name}=${raw}`), await listed(t, [[`${name}[eq]`, raw]], `${name}[eq]`))
      }
      for (const raw of field.bad) {
        const reply = await get(`/muestras?${query([[`${name}[eq]`, raw]])}`)
        t.equal(reply.status, 400, `${name}[eq]=${raw}: a bad value`)
        t.match(reply.body.details, [{ field: name, message: `Filtro '${name}[eq]' no válido` }])
        if (field.kind !== 'boolean') {
          const inList = await get(`/muestras?${query([[`${name}[in]`, `${field.probes[0]},${raw}`]])}`)
          t.equal(inList.status, 400, `${name}[in] with a bad member`)
        }
      }
    }
  },
)

t.test('conditions combine with AND, on one field and across fields', async (t) => {
  const { listed } = shared
  t.same(
    await listed(
      t,
      [
        ['momento[gte]', '2026-02-01 00:00:00'],
        ['momento[lt]', '2026-03-01 00:00:00'],
      ],
      'a range',
    ),
    [1, 3],
  )
  t.same(
    await listed(
      t,
      [
        ['entero[gt]', '-10'],
        ['entero[ne]', '0'],
        ['activo', 'false'],
      ],
      'three',
    ),
    [3],
  )
  t.same(
    await listed(
      t,
      [
        ['nivel', 'medio'],
        ['texto[in]', 'beta,gamma'],
      ],
      'eq and in',
    ),
    [1],
  )
})

t.test('sort on several fields, ties in creation order', async (t) => {
  const { listed } = shared
  const live = ['texto[null]', 'false'] as [string, string]
  t.same(await listed(t, [live, ['sort', 'nivel,-entero']], 'nivel,-entero'), [2, 0, 3, 1])
  t.same(await listed(t, [live, ['sort', '-activo,numero']], '-activo,numero'), [0, 2, 3, 1])
  t.same(await listed(t, [live, ['sort', 'activo']], 'activo: ties in creation order'), [1, 3, 0, 2])
  t.same(await listed(t, [live, ['sort', '-_created']], '-_created'), [3, 2, 1, 0])
})

t.test('_created and _modified by range; a date alone is its first second', async (t) => {
  const { listed, created } = shared
  t.same(
    await listed(
      t,
      [
        ['_created[gte]', created[1]!],
        ['_created[lt]', created[3]!],
      ],
      '_created range',
    ),
    [1, 2],
  )
  t.same(await listed(t, [['_created[gt]', created[3]!]], '_created gt'), [4])
  t.same(await listed(t, [['_modified[lte]', created[0]!]], '_modified lte'), [0])
  const day = created[0]!.slice(0, 10)
  t.same(await listed(t, [['_created[gte]', day]], 'from the day'), [0, 1, 2, 3, 4])
  t.same(await listed(t, [['_created[lt]', day]], 'before the day'), [])
})

t.test('an encrypted field: eq and in through the blind index need descifrar; null does not', async (t) => {
  const { api, get, ids } = shared
  const lector = await api.userWithRole('lector')
  const empty = await get(`/muestras?${query([['secreto[null]', 'true']])}`, lector.token)
  t.equal(empty.status, 200, 'emptiness shows in a masked record anyway')
  t.same(
    empty.body.data.records.map((r: { _id: string }) => r._id),
    [ids[4]],
  )
  for (const key of ['secreto', 'secreto[eq]', 'secreto[in]'])
    t.equal((await get(`/muestras?${query([[key, 'zeta']])}`, lector.token)).status, 403, `${key} without descifrar`)
})

t.test('every malformed query is a 400 in the envelope, naming field and operator', async (t) => {
  const { get } = shared
  const cases: [string, string, RegExp][] = [
    ['entero[like]=1', 'entero', /Operador desconocido 'like' en 'entero\[like\]'/],
    ['entero[]=1', 'entero', /Operador desconocido '' en 'entero\[\]'/],
    ['entero[gt=1', 'entero[gt', /Campo de filtro desconocido/],
    ['entero[gt][x]=1', 'entero[gt][x]', /Campo de filtro desconocido/],
    ['nada[gt]=1', 'nada', /Campo de filtro desconocido 'nada'/],
    ['_hash[eq]=x', '_hash', /Campo de filtro desconocido '_hash'/],
    ['_created[in]=2026-01-01', '_created', /El operador 'in' no se admite en '_created'/],
    ['_created[gte]=ayer', '_created', /Filtro '_created\[gte\]' no válido/],
    ['activo[null]=si', 'activo', /Filtro 'activo\[null\]' no válido: debe ser true o false/],
    [`entero[in]=${Array.from({ length: 101 }, (_, i) => i).join(',')}`, 'entero', /como máximo 100 valores/],
    ['entero[gt]=1&entero[gt]=2', 'entero[gt]', /aparece más de una vez/],
    ['sort=entero,-entero', 'sort', /El campo 'entero' aparece más de una vez en 'sort'/],
    ['sort=entero,secreto', 'sort', /No se puede ordenar por 'secreto'/],
    ['sort=entero,', 'sort', /No se puede ordenar por ''/],
    ['fields=texto,nada', 'fields', /Campo desconocido 'nada' en 'fields'/],
  ]
  for (const [search, field, message] of cases) {
    const reply = await get(`/muestras?${search.replaceAll('[', '%5B').replaceAll(']', '%5D')}`)
    t.equal(reply.status, 400, search)
    t.equal(reply.body.success, false, `${search}: the error envelope`)
    t.match(reply.body.error, /^Datos inválidos: /, search)
    t.match(reply.body.details, [{ field, message }], search)
  }
  const hundred = Array.from({ length: 100 }, (_, i) => i).join(',')
  t.equal((await get(`/muestras?entero%5Bin%5D=${hundred}`)).status, 200, '100 values are allowed')
  const one = await get(`/muestras?limit=1`)
  t.equal((await get(`/muestras/${one.body.data.records[0]._id}?fields=nada`)).status, 400, 'fields on GET by id too')
})

t.test('fields= returns only those fields and the metadata, and decrypts nothing else', async (t) => {
  const { api, get, ids } = shared
  // `_sal` too: this reader reads every field in clear, so it can recompute `_hash` (F4, D17).
  const META = ['_id', '_created', '_created_by', '_modified', '_modified_by', '_version', '_hash', '_sal']
  const list = await get('/muestras?fields=texto,secreto,_id&limit=1')
  t.equal(list.status, 200)
  t.same(Object.keys(list.body.data.records[0]).sort(), [...META, 'secreto', 'texto'].sort())
  t.equal(list.body.data.records[0].secreto, 'a,b')
  const one = await get(`/muestras/${ids[1]}?fields=entero`)
  t.same(Object.keys(one.body.data).sort(), [...META, 'entero'].sort())
  t.equal(one.body.data.entero, 0)

  // A damaged ciphertext in a field not asked for is never decrypted: the record reads clean.
  await sql`update muestras set secreto = ${'v1.00000000.AAAA.BBBB.CCCC'} where _id = ${ids[2]}`.execute(
    api.service.database.db,
  )
  const clean = await get(`/muestras/${ids[2]}?fields=texto,clave`)
  t.equal(clean.body.data._integridad, undefined, 'not asked for: not decrypted, no integrity failure')
  t.equal(clean.body.data.clave, 3)
  const cleanList = await get('/muestras?fields=texto&limit=1000')
  t.ok(
    cleanList.body.data.records.every((r: Record<string, unknown>) => r['_integridad'] === undefined),
    'nor in a list',
  )
  const damaged = await get(`/muestras/${ids[2]}?fields=secreto`)
  t.equal(damaged.body.data._integridad, 'error', 'asked for: decrypted, and the failure shows')
})
