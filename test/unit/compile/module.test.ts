// One module compiled: defaults (D6), required fields (D5), body schemas (D7), encrypted fields (D14-D16).
import { Ajv } from 'ajv'
import addFormatsPlugin from 'ajv-formats'
import t from 'tap'
import { FORMATS } from '../../../src/compile/formats.js'
import { moduleOf, shippedService } from '../support/config.js'
import { D5_REQUIRED } from '../../fixtures/decisions.js'

const service = shippedService()
const addFormats = addFormatsPlugin as unknown as (ajv: Ajv, formats: string[]) => Ajv
const ajv = new Ajv({ allErrors: true, strict: false, removeAdditional: false })
addFormats(ajv, ['email', 'uri'])
for (const [name, check] of Object.entries(FORMATS)) ajv.addFormat(name, { type: 'string', validate: check })
const ROLES = ['superadmin', 'administrador', 'jefe', 'oficial', 'agente', 'consulta', 'dpd']

t.test('D6: a state field starts at the first state of its list; literal and $now defaults', async (t) => {
  const defaults = Object.fromEntries(service.modules.map((m) => [m.name, m.defaults]))
  t.strictSame(defaults, {
    denuncias: [
      { field: 'estado', value: { literal: 'pendiente' } },
      { field: 'prioridad', value: { literal: 'media' } },
    ],
    sanciones: [{ field: 'estado', value: { literal: 'borrador' } }],
    atestados: [],
    personal: [{ field: 'situacion', value: { literal: 'activo' } }],
    vehiculos: [{ field: 'estado', value: { literal: 'operativo' } }],
    sala092: [
      { field: 'fecha_hora_entrada', value: { now: 'datetime' } },
      { field: 'estado', value: { literal: 'pendiente' } },
    ],
    turnos: [{ field: 'estado', value: { literal: 'planificado' } }],
    equipamiento: [{ field: 'estado', value: { literal: 'disponible' } }],
    usuarios: [{ field: 'activo', value: { literal: true } }],
  })
})

t.test('D6: each module names its state field', async (t) => {
  t.same(Object.fromEntries(service.modules.map((m) => [m.name, m.stateField ?? null])), {
    denuncias: 'estado',
    sanciones: 'estado',
    atestados: null,
    personal: 'situacion',
    vehiculos: 'estado',
    sala092: 'estado',
    turnos: 'estado',
    equipamiento: 'estado',
    usuarios: null,
  })
})

t.test('D5: the create schema requires exactly the fields of D5', async (t) => {
  const required = Object.fromEntries(service.modules.map((m) => [m.name, m.schemas.create['required']]))
  t.strictSame(required, D5_REQUIRED)
  for (const spec of service.modules)
    t.same(spec.requiredFields, spec.schemas.create['required'], `${spec.name} requiredFields`)
})

t.test(
  'D7: create and update bodies reject unknown fields (additionalProperties false); update requires nothing',
  async (t) => {
    for (const spec of service.modules) {
      t.equal(spec.schemas.create['additionalProperties'], false, `${spec.name} create`)
      t.equal(spec.schemas.update['additionalProperties'], false, `${spec.name} update`)
      t.equal(spec.schemas.update['required'], undefined, `${spec.name} update has no required list`)
    }
    const validate = ajv.compile(moduleOf(service, 'vehiculos').schemas.create)
    t.equal(validate({ matricula: '1234ABC', tipo: 'patrulla' }), true, 'a minimal vehicle is valid')
    t.equal(
      validate({ matricula: '1234ABC', tipo: 'patrulla', matriculaa: 'x' }),
      false,
      'a misspelt field is rejected',
    )
    t.match(validate.errors, [{ keyword: 'additionalProperties', params: { additionalProperty: 'matriculaa' } }])
  },
)

t.test('D5: a required string cannot be empty; an optional field may be null', async (t) => {
  const validate = ajv.compile(moduleOf(service, 'vehiculos').schemas.create)
  t.equal(validate({ matricula: '', tipo: 'patrulla' }), false)
  t.match(validate.errors, [{ keyword: 'minLength', instancePath: '/matricula' }])
  t.equal(validate({ matricula: '1234ABC', tipo: 'patrulla', marca: null, km_actuales: null, estado: null }), true)
  t.equal(validate({ tipo: 'patrulla' }), false)
  t.match(validate.errors, [{ keyword: 'required', params: { missingProperty: 'matricula' } }])
})

t.test('D4, D7: enum, minimum, date and time values are checked by the body schema', async (t) => {
  const vehiculo = ajv.compile(moduleOf(service, 'vehiculos').schemas.create)
  t.equal(vehiculo({ matricula: 'A', tipo: 'avion' }), false, 'outside the enum')
  t.equal(vehiculo({ matricula: 'A', tipo: 'moto', km_actuales: -1 }), false, 'km_actuales >= 0')
  t.equal(vehiculo({ matricula: 'A', tipo: 'moto', km_actuales: 1.5 }), false, 'km_actuales is an integer')
  t.equal(vehiculo({ matricula: 'A', tipo: 'moto', fecha_itv: '2026-02-30' }), false, 'no 2026-02-30')
  t.equal(vehiculo({ matricula: 'A', tipo: 'moto', fecha_itv: '2024-02-29' }), true)
  const turno = ajv.compile(moduleOf(service, 'turnos').schemas.create)
  const base = { agente_id: 'PER-2026-00001', fecha: '2026-03-01', tipo_turno: 'mañana' }
  t.equal(turno({ ...base, hora_inicio: '23:59' }), true)
  t.equal(turno({ ...base, hora_inicio: '24:00' }), false)
  t.equal(turno({ ...base, hora_inicio: '7:00' }), false)
})

t.test('D7: field schemas of a body, exactly', async (t) => {
  const denuncias = moduleOf(service, 'denuncias').schemas.create['properties'] as Record<string, unknown>
  t.strictSame(denuncias['denunciante_nombre'], {
    type: 'string',
    maxLength: 1000,
    description: 'Nombre completo del denunciante',
    minLength: 1,
  })
  t.strictSame(denuncias['prioridad'], {
    type: ['string', 'null'],
    maxLength: 1000,
    enum: ['baja', 'media', 'alta', 'urgente', null],
  })
  t.strictSame(denuncias['fecha_hechos'], { type: 'string', format: 'local-datetime', minLength: 1 })
  t.strictSame(denuncias['testigos'], { type: ['array', 'null'], maxItems: 1000 })
  const sanciones = moduleOf(service, 'sanciones').schemas.create['properties'] as Record<string, unknown>
  t.strictSame(
    sanciones['importe'],
    { type: 'number', minimum: 0, description: 'De solo lectura en los estados firme, cobrada, anulada (409).' },
    'the rule is noted',
  )
  t.strictSame(sanciones['puntos_carnet'], { type: ['integer', 'null'], minimum: 0, maximum: 15 })
  const usuarios = moduleOf(service, 'usuarios').schemas.create['properties'] as Record<string, unknown>
  t.strictSame(usuarios['rol'], { type: 'string', enum: ROLES, minLength: 1 })
  t.strictSame(usuarios['password'], { type: 'string', maxLength: 72, minLength: 8 })
  t.strictSame(usuarios['activo'], { type: ['boolean', 'null'] })
})

t.test('D22: a password is write-only: in the create body, never in the record schema', async (t) => {
  const usuarios = moduleOf(service, 'usuarios')
  t.ok('password' in (usuarios.schemas.create['properties'] as object))
  t.notOk('password' in (usuarios.schemas.record['properties'] as object))
  t.equal(usuarios.fieldsByName.get('password')?.writeOnly, true)
  t.equal(usuarios.fieldsByName.get('password')?.parseFilter, null, 'nor can it be filtered')
})

t.test('D8, API reference 2.3: the record schema requires the metadata and checks the id pattern', async (t) => {
  const record = moduleOf(service, 'sala092').schemas.record
  // F4, D17: `_hash` is left out for a reader who cannot read every field of an unsalted record.
  t.same(record['required'], ['_id', '_created', '_created_by', '_modified', '_modified_by', '_version'])
  t.ok((record['properties'] as Record<string, unknown>)['_hash'], '_hash is described, not required')
  const id = (record['properties'] as Record<string, { pattern: string }>)['_id']
  t.equal(id?.pattern, '^092-[0-9]{4}-[0-9]{5,}$')
  t.match('092-2026-00001', new RegExp(id?.pattern ?? '$^'))
  t.match('092-2026-100000', new RegExp(id?.pattern ?? '$^'), 'D8: past 99999 the number keeps growing')
})

t.test('D15: an encrypted field in a record may come back masked as ***', async (t) => {
  const record = moduleOf(service, 'personal').schemas.record['properties'] as Record<string, { anyOf?: unknown[] }>
  t.strictSame(record['nif']?.anyOf, [
    { type: ['string', 'null'], maxLength: 1000 },
    { type: 'string', const: '***' },
  ])
  t.equal(record['tip']?.anyOf, undefined, 'a plain field is not masked')
})

t.test('D14, D16: every encrypted field has a blind index column and cannot be sorted', async (t) => {
  const encrypted = service.modules.flatMap((m) =>
    m.fields.filter((f) => f.encrypted).map((f) => [`${m.name}.${f.name}`, f.blindIndexColumn, f.sortable, f.storage]),
  )
  t.same(encrypted, [
    ['denuncias.denunciante_dni', '_bidx_denunciante_dni', false, 'text'],
    ['denuncias.denunciante_telefono', '_bidx_denunciante_telefono', false, 'text'],
    ['denuncias.denunciante_domicilio', '_bidx_denunciante_domicilio', false, 'text'],
    ['sanciones.infractor_dni', '_bidx_infractor_dni', false, 'text'],
    ['sanciones.infractor_domicilio', '_bidx_infractor_domicilio', false, 'text'],
    ['personal.nif', '_bidx_nif', false, 'text'],
    ['personal.fecha_nacimiento', '_bidx_fecha_nacimiento', false, 'text'],
    ['personal.contacto_telefono', '_bidx_contacto_telefono', false, 'text'],
    ['sala092.numero_llamada', '_bidx_numero_llamada', false, 'text'],
  ])
  for (const spec of service.modules)
    for (const f of spec.fields.filter((f) => !f.encrypted))
      t.equal(f.blindIndexColumn, undefined, `${spec.name}.${f.name} has no blind index`)
})
