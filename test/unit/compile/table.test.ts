// The SQL table of a module: metadata, fields, blind indexes, unique and plain indexes (D8-D12, D16).
import t from 'tap'
import { moduleOf, shippedService } from '../support/config.js'

const service = shippedService()
const META = [
  { name: '_row', storage: 'integer', nullable: false, autoIncrement: true },
  { name: '_id', storage: 'text', nullable: false },
  { name: '_created', storage: 'text', nullable: false },
  { name: '_created_by', storage: 'text', nullable: false },
  { name: '_modified', storage: 'text', nullable: false },
  { name: '_modified_by', storage: 'text', nullable: false },
  { name: '_version', storage: 'integer', nullable: false },
  { name: '_hash', storage: 'text', nullable: false },
  { name: '_deleted', storage: 'text', nullable: true },
]
const column = (name: string, storage: string) => ({ name, storage, nullable: true })

t.test('D12, D16: the personal table, exactly: unique encrypted nif is a unique index on its blind index', async (t) => {
  t.strictSame(moduleOf(service, 'personal').table, {
    name: 'personal',
    columns: [
      ...META,
      column('tip', 'text'),
      column('nif', 'text'), column('_bidx_nif', 'text'),
      column('nombre', 'text'),
      column('apellidos', 'text'),
      column('fecha_nacimiento', 'text'), column('_bidx_fecha_nacimiento', 'text'),
      column('escala', 'text'),
      column('categoria', 'text'),
      column('destino', 'text'),
      column('fecha_ingreso', 'text'),
      column('situacion', 'text'),
      column('contacto_telefono', 'text'), column('_bidx_contacto_telefono', 'text'),
      column('contacto_email', 'text'),
      column('formacion', 'json'),
      column('idiomas', 'json'),
    ],
    indexes: [
      { name: 'ux_personal__id', columns: ['_id'], unique: true, liveOnly: false },
      { name: 'ix_personal__created_by', columns: ['_created_by'], unique: false, liveOnly: true },
      { name: 'ux_personal_tip', columns: ['tip'], unique: true, liveOnly: true, field: 'tip' },
      { name: 'ux_personal_nif', columns: ['_bidx_nif'], unique: true, liveOnly: true, field: 'nif' },
      { name: 'ix_personal_situacion', columns: ['situacion'], unique: false, liveOnly: true },
    ],
  })
})

t.test('field types map to their storage kinds (integer, real, boolean, json)', async (t) => {
  const storage = (module: string, field: string) => moduleOf(service, module).table.columns.find((c) => c.name === field)?.storage
  t.equal(storage('vehiculos', 'km_actuales'), 'integer')
  t.equal(storage('sanciones', 'importe'), 'real')
  t.equal(storage('usuarios', 'activo'), 'boolean')
  t.equal(storage('atestados', 'imputados'), 'json')
  t.equal(storage('turnos', 'hora_inicio'), 'text')
})

t.test('D12: every unique field of modules.yaml is a live-only unique index naming its field', async (t) => {
  const unique = service.modules.flatMap((m) => m.table.indexes.filter((i) => i.field !== undefined).map((i) => `${m.name}.${i.field}`))
  t.same(unique, ['personal.tip', 'personal.nif', 'vehiculos.matricula', 'vehiculos.bastidor', 'equipamiento.numero_serie', 'usuarios.username'])
  for (const spec of service.modules)
    for (const index of spec.table.indexes.filter((i) => i.field !== undefined)) t.equal(index.liveOnly, true, `${index.name} ignores deleted records`)
})

t.test('D8: _id is unique across deleted records too', async (t) => {
  for (const spec of service.modules)
    t.strictSame(spec.table.indexes[0], { name: `ux_${spec.name}__id`, columns: ['_id'], unique: true, liveOnly: false })
})
