// A list request's query string -> ListQuery, or one 400 naming every bad parameter (D11, D16).
import t, { type Test } from 'tap'
import { parseListQuery, splitList, type ListLimits } from '../../../src/records/list-query.js'
import { AppError, type ErrorDetail } from '../../../src/errors.js'
import { moduleOf, shippedService } from '../support/config.js'

const service = shippedService()
const LIMITS: ListLimits = { defaultLimit: 100, maxLimit: 1000, maxFilters: 20 }
const denuncias = moduleOf(service, 'denuncias')
const vehiculos = moduleOf(service, 'vehiculos')
type Query = Parameters<typeof parseListQuery>[1]
const parse = (query: Query, spec = denuncias, limits = LIMITS) => parseListQuery(spec, query, limits)

/** The details of the 400 that `query` must produce. */
function rejected(t: Test, query: Query, spec = denuncias, limits = LIMITS): readonly ErrorDetail[] {
  try {
    parse(query, spec, limits)
  } catch (error) {
    t.ok(error instanceof AppError, 'an AppError')
    if (!(error instanceof AppError)) throw error
    t.equal(error.statusCode, 400)
    t.equal(error.code, 'VALIDATION')
    return error.details ?? []
  }
  t.fail('expected a 400')
  return []
}
const fields = (details: readonly ErrorDetail[]) => details.map((d) => d.field)

t.test('D11: no parameters: limit 100, offset 0, creation order, no filters', async (t) => {
  t.strictSame(parse({}), {
    limit: 100,
    offset: 0,
    filters: [],
    sort: [],
    fields: undefined,
    filtersEncrypted: false,
  })
})

t.test('D11: the default limit comes from modules.yaml service.list', async (t) => {
  t.equal(parse({}, denuncias, { defaultLimit: 25, maxLimit: 50, maxFilters: 20 }).limit, 25)
})

t.test('D11: limit and offset are read as integers', async (t) => {
  t.match(parse({ limit: '10', offset: '30' }), { limit: 10, offset: 30 })
  t.match(parse({ limit: '1', offset: '0' }), { limit: 1, offset: 0 })
})

t.test('D11: limit above 1000 clamps to 1000', async (t) => {
  t.equal(parse({ limit: '1001' }).limit, 1000)
  t.equal(parse({ limit: '1000' }).limit, 1000)
  t.equal(parse({ limit: '999999999999' }).limit, 1000)
  t.equal(parse({ limit: '9'.repeat(16) }).limit, 1000, '16 digits clamp too')
  t.equal(parse({ limit: '9'.repeat(400) }).limit, 1000, 'beyond a double clamps too')
  t.equal(
    parse({ offset: '9'.repeat(30) }).offset,
    Number.MAX_SAFE_INTEGER,
    'a huge offset is past any end, not an error',
  )
  t.equal(
    parse({ limit: '80' }, denuncias, { defaultLimit: 10, maxLimit: 50, maxFilters: 20 }).limit,
    50,
    'max_limit of modules.yaml',
  )
})

t.test('D11: limit 0 is a 400 naming limit', async (t) => {
  const details = rejected(t, { limit: '0' })
  t.same(fields(details), ['limit'])
  t.match(details[0]?.message, /al menos 1/)
})

t.test('D11: a negative offset is a 400 naming offset', async (t) => {
  t.same(fields(rejected(t, { offset: '-1' })), ['offset'])
})

t.test('D11: a non-integer limit or offset is a 400', async (t) => {
  for (const value of ['abc', '1.5', '', ' 5', '1e3', '-5', '0x10'])
    t.same(fields(rejected(t, { limit: value })), ['limit'], `limit=${JSON.stringify(value)}`)
  t.same(fields(rejected(t, { offset: '2.0' })), ['offset'])
})

t.test('D11: a repeated parameter is a 400 naming it', async (t) => {
  t.same(fields(rejected(t, { limit: ['10', '20'] })), ['limit'])
  t.same(fields(rejected(t, { sort: ['tipo', '-tipo'] })), ['sort'])
  const details = rejected(t, { tipo: ['robo', 'hurto'] })
  t.same(fields(details), ['tipo'])
  t.match(details[0]?.message, /más de una vez/)
})

t.test('D11: every bad parameter is reported in the same 400', async (t) => {
  t.same(fields(rejected(t, { limit: '0', offset: 'x', sort: 'testigos', nope: '1' })).sort(), [
    'limit',
    'nope',
    'offset',
    'sort',
  ])
})

t.test('D11: an unknown filter field is a 400 naming it', async (t) => {
  const details = rejected(t, { tipoo: 'robo' })
  t.strictSame(details, [{ field: 'tipoo', message: "Campo de filtro desconocido 'tipoo'" }])
})

t.test('D11: a filter on an array field is a 400 naming it', async (t) => {
  const details = rejected(t, { testigos: 'x' })
  t.same(fields(details), ['testigos'])
  t.match(details[0]?.message, /No se puede filtrar por 'testigos'/)
})

t.test('D22: a password cannot be filtered', async (t) => {
  t.same(fields(rejected(t, { password: 'secreto123' }, moduleOf(service, 'usuarios'))), ['password'])
})

t.test('D11: an enum filter outside the list is a 400 listing the allowed values', async (t) => {
  const details = rejected(t, { estado: 'cerrada' })
  t.strictSame(details, [
    {
      field: 'estado',
      message: "Filtro 'estado' no válido: debe ser uno de: pendiente, investigacion, archivada, judicializada",
    },
  ])
})

t.test('D21: a role filter must name one of the roles', async (t) => {
  const usuarios = moduleOf(service, 'usuarios')
  t.same(parse({ rol: 'agente' }, usuarios).filters, [
    { name: 'rol', column: 'rol', op: 'eq', value: 'agente', blind: false },
  ])
  t.match(
    rejected(t, { rol: 'capitan' }, usuarios)[0]?.message,
    /superadmin, administrador, jefe, oficial, agente, consulta/,
  )
})

t.test('D11: filters are exact values converted to the field type, combined with AND', async (t) => {
  t.strictSame(
    parse({ km_actuales: '1200', estado: 'taller', fecha_itv: '2026-05-31', marca: 'Seat' }, vehiculos).filters,
    [
      { name: 'km_actuales', column: 'km_actuales', op: 'eq', value: 1200, blind: false },
      { name: 'estado', column: 'estado', op: 'eq', value: 'taller', blind: false },
      { name: 'fecha_itv', column: 'fecha_itv', op: 'eq', value: '2026-05-31', blind: false },
      { name: 'marca', column: 'marca', op: 'eq', value: 'Seat', blind: false },
    ],
  )
  t.strictSame(parse({ activo: 'false' }, moduleOf(service, 'usuarios')).filters, [
    { name: 'activo', column: 'activo', op: 'eq', value: false, blind: false },
  ])
  t.strictSame(parse({ activo: 'true' }, moduleOf(service, 'usuarios')).filters, [
    { name: 'activo', column: 'activo', op: 'eq', value: true, blind: false },
  ])
  t.strictSame(parse({ importe: '90.5' }, moduleOf(service, 'sanciones')).filters, [
    { name: 'importe', column: 'importe', op: 'eq', value: 90.5, blind: false },
  ])
  t.strictSame(parse({ fecha_hechos: '2026-01-31 23:59:59' }).filters, [
    { name: 'fecha_hechos', column: 'fecha_hechos', op: 'eq', value: '2026-01-31 23:59:59', blind: false },
  ])
  t.strictSame(parse({ hora_inicio: '07:30' }, moduleOf(service, 'turnos')).filters, [
    { name: 'hora_inicio', column: 'hora_inicio', op: 'eq', value: '07:30', blind: false },
  ])
})

t.test('D11: a value that does not convert to the field type is a 400 naming the field', async (t) => {
  t.same(fields(rejected(t, { km_actuales: 'mucho' }, vehiculos)), ['km_actuales'])
  t.same(fields(rejected(t, { km_actuales: '1.5' }, vehiculos)), ['km_actuales'])
  t.same(fields(rejected(t, { activo: 'si' }, moduleOf(service, 'usuarios'))), ['activo'])
  t.same(fields(rejected(t, { fecha_itv: '2026-02-30' }, vehiculos)), ['fecha_itv'])
  t.same(fields(rejected(t, { fecha_hechos: '2026-01-31' })), ['fecha_hechos'])
  t.same(fields(rejected(t, { hora_inicio: '24:00' }, moduleOf(service, 'turnos'))), ['hora_inicio'])
})

t.test('D4: an open list (denuncias.tipo) accepts any value', async (t) => {
  t.strictSame(parse({ tipo: 'estafa informática' }).filters, [
    { name: 'tipo', column: 'tipo', op: 'eq', value: 'estafa informática', blind: false },
  ])
})

t.test('D16: a filter on an encrypted field goes through its blind index and flags filtersEncrypted', async (t) => {
  const query = parse({ denunciante_dni: '12345678Z', tipo: 'robo' })
  t.strictSame(query.filters, [
    { name: 'denunciante_dni', column: '_bidx_denunciante_dni', op: 'eq', value: '12345678Z', blind: true },
    { name: 'tipo', column: 'tipo', op: 'eq', value: 'robo', blind: false },
  ])
  t.equal(query.filtersEncrypted, true)
  t.equal(parse({ tipo: 'robo' }).filtersEncrypted, false)
})

t.test('D11: _created_by and _modified_by are filterable metadata; other metadata is not', async (t) => {
  t.strictSame(parse({ _created_by: 'USR-2026-00001', _modified_by: 'USR-2026-00002' }).filters, [
    { name: '_created_by', column: '_created_by', op: 'eq', value: 'USR-2026-00001', blind: false },
    { name: '_modified_by', column: '_modified_by', op: 'eq', value: 'USR-2026-00002', blind: false },
  ])
  t.same(fields(rejected(t, { _hash: 'abc' })), ['_hash'])
  t.same(fields(rejected(t, { _deleted: '2026-01-01 00:00:00' })), ['_deleted'])
})

t.test('D11: sort=field and sort=-field order by a scalar field', async (t) => {
  t.strictSame(parse({ sort: 'fecha_hechos' }).sort, [{ column: 'fecha_hechos', descending: false }])
  t.strictSame(parse({ sort: '-prioridad' }).sort, [{ column: 'prioridad', descending: true }])
  t.strictSame(parse({ sort: '-_created' }).sort, [{ column: '_created', descending: true }])
  t.strictSame(parse({ sort: '_version' }).sort, [{ column: '_version', descending: false }])
})

t.test('D11, D16: sort on an encrypted, array or unknown field is a 400 naming sort', async (t) => {
  for (const sort of ['denunciante_dni', '-denunciante_dni', 'testigos', 'nada', '-', '_hash', '_row'])
    t.strictSame(fields(rejected(t, { sort })), ['sort'], `sort=${sort}`)
})

t.test('D11: more filters than service.list.max_filters is a 400', async (t) => {
  const limits = { ...LIMITS, maxFilters: 2 }
  const details = rejected(t, { tipo: 'robo', estado: 'pendiente', prioridad: 'alta' }, denuncias, limits)
  t.strictSame(details, [{ field: 'filtros', message: 'Demasiados filtros: como máximo 2' }])
  t.equal(
    parse({ tipo: 'robo', estado: 'pendiente', limit: '5', offset: '1', sort: 'tipo' }, denuncias, limits).filters
      .length,
    2,
    'limit, offset and sort are not filters',
  )
})

t.test('campo[op]=valor parses to the operator, the value converted; plain campo is eq', async (t) => {
  t.strictSame(parse({ 'km_actuales[gte]': '100', 'km_actuales[lt]': '200' }, vehiculos).filters, [
    { name: 'km_actuales', column: 'km_actuales', op: 'gte', value: 100, blind: false },
    { name: 'km_actuales', column: 'km_actuales', op: 'lt', value: 200, blind: false },
  ])
  t.strictSame(parse({ 'prioridad[in]': 'alta,urgente' }).filters, [
    { name: 'prioridad', column: 'prioridad', op: 'in', value: ['alta', 'urgente'], blind: false },
  ])
  t.strictSame(parse({ 'agente_asignado[null]': 'true' }).filters, [
    { name: 'agente_asignado', column: 'agente_asignado', op: 'null', value: true, blind: false },
  ])
  const dni = parse({ 'denunciante_dni[in]': '1\\,2,3' })
  t.strictSame(dni.filters, [
    { name: 'denunciante_dni', column: '_bidx_denunciante_dni', op: 'in', value: ['1,2', '3'], blind: true },
  ])
  t.equal(dni.filtersEncrypted, true)
  const empty = parse({ 'denunciante_dni[null]': 'false' })
  t.strictSame(empty.filters[0], {
    name: 'denunciante_dni',
    column: 'denunciante_dni',
    op: 'null',
    value: false,
    blind: false,
  })
  t.equal(empty.filtersEncrypted, false, 'emptiness of an encrypted field needs no descifrar')
})

t.test('_created and _modified take ranges; a date alone is its first second', async (t) => {
  t.strictSame(parse({ '_created[gte]': '2026-01-01', '_modified[lt]': '2026-02-01 10:00:00' }).filters, [
    { name: '_created', column: '_created', op: 'gte', value: '2026-01-01 00:00:00', blind: false },
    { name: '_modified', column: '_modified', op: 'lt', value: '2026-02-01 10:00:00', blind: false },
  ])
  t.match(rejected(t, { '_created[in]': '2026-01-01' }), [{ field: '_created', message: /no se admite/ }])
  t.match(rejected(t, { '_created_by[gt]': 'USR-2026-00001' }), [{ field: '_created_by', message: /no se admite/ }])
})

t.test('splitList: a comma splits unless escaped; \\\\ is one backslash', async (t) => {
  t.strictSame(splitList('a,b'), ['a', 'b'])
  t.strictSame(splitList('a\\,b,c'), ['a,b', 'c'])
  t.strictSame(splitList('a\\\\,b'), ['a\\', 'b'])
  t.strictSame(splitList('a\\b'), ['a\\b'], 'another backslash stays')
  t.strictSame(splitList(''), [''])
})

t.test('sort on several keys; fields= names module fields and metadata', async (t) => {
  t.strictSame(parse({ sort: '-prioridad,fecha_hechos,_created' }).sort, [
    { column: 'prioridad', descending: true },
    { column: 'fecha_hechos', descending: false },
    { column: '_created', descending: false },
  ])
  t.strictSame([...(parse({ fields: '_id,estado,prioridad,_version' }).fields ?? [])], ['estado', 'prioridad'])
  t.same(fields(rejected(t, { fields: 'estado,nada' })), ['fields'])
  t.same(fields(rejected(t, { fields: 'password' }, moduleOf(service, 'usuarios'))), ['fields'], 'never returned')
  t.same(fields(rejected(t, { fields: ['estado', 'tipo'] })), ['fields'])
})
