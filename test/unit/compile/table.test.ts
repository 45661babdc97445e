// The SQL table of a module: metadata, fields, blind indexes, unique and plain indexes (D8-D12, D16).
import t from 'tap'
import { compileService } from '../../../src/compile/service.js'
import { configFrom, moduleOf, shippedService } from '../support/config.js'

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
  { name: '_sal', storage: 'text', nullable: true },
]
const column = (name: string, storage: string) => ({ name, storage, nullable: true })

t.test(
  'D12, D16: the personal table, exactly: unique encrypted nif is a unique index on its blind index',
  async (t) => {
    t.strictSame(moduleOf(service, 'personal').table, {
      name: 'personal',
      columns: [
        ...META,
        column('tip', 'text'),
        column('nif', 'text'),
        column('_bidx_nif', 'text'),
        column('nombre', 'text'),
        column('apellidos', 'text'),
        column('fecha_nacimiento', 'text'),
        column('_bidx_fecha_nacimiento', 'text'),
        column('escala', 'text'),
        column('categoria', 'text'),
        column('destino', 'text'),
        column('fecha_ingreso', 'text'),
        column('situacion', 'text'),
        column('contacto_telefono', 'text'),
        column('_bidx_contacto_telefono', 'text'),
        column('contacto_email', 'text'),
        column('formacion', 'json'),
        column('idiomas', 'json'),
      ],
      indexes: [
        { name: 'ux_personal__id', columns: ['_id'], unique: true, liveOnly: false },
        { name: 'ix_personal__created_by', columns: ['_created_by'], unique: false, liveOnly: true },
        { name: 'ix_personal__live', columns: ['_row'], unique: false, liveOnly: true, everyLiveRow: true },
        { name: 'ux_personal_tip', columns: ['tip'], unique: true, liveOnly: true, field: 'tip' },
        { name: 'ux_personal_nif', columns: ['_bidx_nif'], unique: true, liveOnly: true, field: 'nif' },
        { name: 'ix_personal_situacion', columns: ['situacion'], unique: false, liveOnly: true },
      ],
    })
  },
)

t.test('field types map to their storage kinds (integer, real, boolean, json)', async (t) => {
  const storage = (module: string, field: string) =>
    moduleOf(service, module).table.columns.find((c) => c.name === field)?.storage
  t.equal(storage('vehiculos', 'km_actuales'), 'integer')
  t.equal(storage('sanciones', 'importe'), 'real')
  t.equal(storage('usuarios', 'activo'), 'boolean')
  t.equal(storage('atestados', 'imputados'), 'json')
  t.equal(storage('turnos', 'hora_inicio'), 'text')
})

t.test('D12: every unique field of modules.yaml is a live-only unique index naming its field', async (t) => {
  const unique = service.modules.flatMap((m) =>
    m.table.indexes.filter((i) => i.field !== undefined).map((i) => `${m.name}.${i.field}`),
  )
  t.same(unique, [
    'personal.tip',
    'personal.nif',
    'vehiculos.matricula',
    'vehiculos.bastidor',
    'equipamiento.numero_serie',
    'usuarios.username',
  ])
  for (const spec of service.modules)
    for (const index of spec.table.indexes.filter((i) => i.field !== undefined))
      t.equal(index.liveOnly, true, `${index.name} ignores deleted records`)
})

t.test('D8: _id is unique across deleted records too', async (t) => {
  for (const spec of service.modules)
    t.strictSame(spec.table.indexes[0], {
      name: `ux_${spec.name}__id`,
      columns: ['_id'],
      unique: true,
      liveOnly: false,
    })
})

t.test('indexes: of denuncias are composite, non-unique, live-only indexes in the declared order', async (t) => {
  const composites = moduleOf(service, 'denuncias').table.indexes.filter((i) => i.name.startsWith('cx_'))
  t.strictSame(composites, [
    { name: 'cx_denuncias__estado__prioridad', columns: ['estado', 'prioridad'], unique: false, liveOnly: true },
    {
      name: 'cx_denuncias__agente_asignado__estado',
      columns: ['agente_asignado', 'estado'],
      unique: false,
      liveOnly: true,
    },
  ])
})

const notas = (fields: string, indexes: string) =>
  configFrom(`
service:
  accounts: { module: usuarios, username: username, password: password, role: rol, active: activo, profile: [username] }
roles:
  superadmin: { permissions: ['*.*'] }
modules:
  usuarios:
    prefix: USR
    fields:
      username: { type: string, required: true, unique: true }
      password: { type: password, required: true }
      rol: { type: role, required: true }
      activo: { type: boolean, default: true }
  ${fields}
    indexes: ${indexes}
`)

t.test('an encrypted field of a composite index is indexed through its blind index column (D16)', async (t) => {
  const config = notas(
    `notas:
    prefix: NOT
    fields:
      dni: { type: string, encrypted: true }
      estado: { type: string }`,
    '[[dni, estado]]',
  )
  t.strictSame(moduleOf(compileService(config), 'notas').table.indexes.at(-1), {
    name: 'cx_notas__dni__estado',
    columns: ['_bidx_dni', 'estado'],
    unique: false,
    liveOnly: true,
  })
})

t.test('composite names cannot meet single-field names and stay within 63 bytes', async (t) => {
  // A field called a__b indexed alone, and the pair [a, b]: ix_/ux_ and cx_ never meet.
  const config = notas(
    `notas:
    prefix: NOT
    fields:
      a__b: { type: string, index: true }
      a: { type: string }
      b: { type: string }`,
    '[[a, b], [a__b, a]]',
  )
  const names = moduleOf(compileService(config), 'notas').table.indexes.map((i) => i.name)
  t.ok(names.includes('ix_notas_a__b'))
  t.ok(names.includes('cx_notas__a__b'))
  t.match(
    names.at(-1),
    /^cx_notas__a__b__a_[0-9a-f]{8}$/,
    'a name holding __ itself gets a hash: its parts could be read two ways',
  )
  t.equal(new Set(names).size, names.length, 'all distinct')

  const long = 'campo_con_un_nombre_muy_largo_para_un_indice_x'
  const longConfig = notas(
    `notas_de_un_modulo_largo:
    prefix: NOT
    fields:
      ${long}1: { type: string }
      ${long}2: { type: string }
      ${long}3: { type: string }
      año_año_año_año_año_año_año_año_año_año_año_año: { type: string }`,
    `[[${long}1, ${long}2], [${long}1, ${long}3], [${long}1, año_año_año_año_año_año_año_año_año_año_año_año]]`,
  )
  const longNames = moduleOf(compileService(longConfig), 'notas_de_un_modulo_largo')
    .table.indexes.filter((i) => i.name.startsWith('cx_'))
    .map((i) => i.name)
  t.equal(longNames.length, 3)
  for (const name of longNames) {
    t.ok(Buffer.byteLength(name) <= 63, `${name}: ${Buffer.byteLength(name)} bytes`)
    t.match(name, /^cx_notas_de_un_modulo_largo__campo.*_[0-9a-f]{8}$/, 'cut, then a hash of the whole name')
  }
  t.equal(new Set(longNames).size, 3, 'names that share the cut prefix differ by their hash')
  t.equal(
    moduleOf(compileService(longConfig), 'notas_de_un_modulo_largo').table.indexes.at(-1)?.name,
    longNames[2],
    'deterministic',
  )
})
