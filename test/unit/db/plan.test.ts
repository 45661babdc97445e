// The migration plan as data: a pure diff of the stored snapshot and modules.yaml (STYLE 5).
import t from 'tap'
import { compileService } from '../../../src/compile/service.js'
import type { ModulesConfig } from '../../../src/config/types.js'
import { describeStep, isUnsafe, planMigration, type MigrationStep } from '../../../src/db/migrate/plan.js'
import { EMPTY_SNAPSHOT, snapshotOf } from '../../../src/db/migrate/snapshot.js'
import { editField, editModule, field, shippedConfig } from '../support/config.js'

const base = shippedConfig()
const specsOf = (config: ModulesConfig) => compileService(config).modules
const baseline = snapshotOf(specsOf(base))
/** The plan from the shipped configuration (as migrated) to `config`. */
const planTo = (config: ModulesConfig): MigrationStep[] => planMigration(baseline, specsOf(config))
const addField = (config: ModulesConfig, module: string, def: ReturnType<typeof field>) =>
  editModule(config, module, (m) => ({ ...m, fields: [...m.fields, def] }))

t.test('from an empty database every table is created with all its indexes', async (t) => {
  const specs = specsOf(base)
  const steps = planMigration(EMPTY_SNAPSHOT, specs)
  t.strictSame(
    steps,
    specs.flatMap((m): MigrationStep[] => [
      { kind: 'create_table', table: m.table },
      ...m.table.indexes.map((index): MigrationStep => ({ kind: 'create_index', table: m.name, index })),
      ...(m.table.search === undefined
        ? []
        : [{ kind: 'create_text_search', table: m.name, columns: m.table.search } as const]),
    ]),
  )
  t.same(
    steps.filter((s) => s.kind === 'create_table').map((s) => s.kind === 'create_table' && s.table.name),
    specs.map((m) => m.name),
  )
  t.equal(
    steps.filter((s) => s.kind === 'create_index').length,
    53,
    '3 per table (id, creator, live rows) + 20 for unique and index: true (two for the record scopes) + 4 for ref fields without index: true + 2 composite',
  )
  t.ok(steps.some((s) => s.kind === 'create_index' && s.index.name === 'ux_personal_nif'))
  t.notOk(steps.some(isUnsafe), 'creating is safe')
})

t.test('D40: a database migrated before the live-rows index gets it at the next start, one per module', async (t) => {
  const specs = specsOf(base)
  const withoutLive = specs.map((m) => ({
    ...m,
    table: { ...m.table, indexes: m.table.indexes.filter((i) => i.name !== `ix_${m.name}__live`) },
  }))
  const steps = planMigration(snapshotOf(withoutLive), specs)
  t.strictSame(
    steps,
    specs.map((m): MigrationStep => ({
      kind: 'create_index',
      table: m.name,
      index: { name: `ix_${m.name}__live`, columns: ['_row'], unique: false, liveOnly: true, everyLiveRow: true },
    })),
  )
  t.notOk(steps.some(isUnsafe), 'safe: applied at start, no `records migrate` needed')
})

t.test(
  'F4: a database migrated before record salts gets the `_sal` column at the next start, one per module',
  async (t) => {
    const specs = specsOf(base)
    const withoutSalt = specs.map((m) => ({
      ...m,
      table: { ...m.table, columns: m.table.columns.filter((c) => c.name !== '_sal') },
    }))
    const steps = planMigration(snapshotOf(withoutSalt), specs)
    t.strictSame(
      steps,
      specs.map((m): MigrationStep => ({
        kind: 'add_column',
        table: m.name,
        column: { name: '_sal', storage: 'text', nullable: true },
      })),
    )
    t.notOk(steps.some(isUnsafe), 'safe: applied at start, no `records migrate` needed')
  },
)

t.test('the configuration the database was migrated to plans nothing', async (t) => {
  t.strictSame(planTo(base), [])
})

t.test('adding a field adds its column, nothing else', async (t) => {
  const steps = planTo(addField(base, 'vehiculos', field('color', 'string')))
  t.strictSame(steps, [
    { kind: 'add_column', table: 'vehiculos', column: { name: 'color', storage: 'text', nullable: true } },
  ])
  t.notOk(steps.some(isUnsafe))
})

t.test('D16: adding an encrypted field adds its value column and its blind index column', async (t) => {
  t.strictSame(planTo(addField(base, 'vehiculos', field('conductor_dni', 'string', { encrypted: true }))), [
    { kind: 'add_column', table: 'vehiculos', column: { name: 'conductor_dni', storage: 'text', nullable: true } },
    {
      kind: 'add_column',
      table: 'vehiculos',
      column: { name: '_bidx_conductor_dni', storage: 'text', nullable: true },
    },
  ])
})

t.test('adding an indexed field adds its column and its index', async (t) => {
  t.strictSame(planTo(addField(base, 'vehiculos', field('color', 'string', { index: true }))), [
    { kind: 'add_column', table: 'vehiculos', column: { name: 'color', storage: 'text', nullable: true } },
    {
      kind: 'create_index',
      table: 'vehiculos',
      index: { name: 'ix_vehiculos_color', columns: ['color'], unique: false, liveOnly: true },
    },
  ])
})

t.test('D5: a new required field without a default must be checked against the existing rows', async (t) => {
  t.strictSame(planTo(addField(base, 'vehiculos', field('color', 'string', { required: true }))), [
    { kind: 'add_column', table: 'vehiculos', column: { name: 'color', storage: 'text', nullable: true } },
    { kind: 'require_field', table: 'vehiculos', field: 'color' },
  ])
})

t.test('D5: an existing field that becomes required (no default) must be checked too', async (t) => {
  t.strictSame(planTo(editField(base, 'vehiculos', 'marca', (f) => ({ ...f, required: true }))), [
    { kind: 'require_field', table: 'vehiculos', field: 'marca' },
  ])
  t.strictSame(
    planTo(editField(base, 'vehiculos', 'marca', (f) => ({ ...f, required: true, default: 'Seat' }))),
    [],
    'a default fills it',
  )
})

t.test('removing a field is remove_field, which is unsafe', async (t) => {
  const steps = planTo(
    editModule(base, 'vehiculos', (m) => ({ ...m, fields: m.fields.filter((f) => f.name !== 'marca') })),
  )
  t.strictSame(steps, [{ kind: 'remove_field', table: 'vehiculos', field: 'marca' }])
  t.equal(isUnsafe(steps[0] as MigrationStep), true)
})

t.test('removing an indexed field also drops its index', async (t) => {
  t.strictSame(
    planTo(
      editModule(base, 'equipamiento', (m) => ({ ...m, fields: m.fields.filter((f) => f.name !== 'asignado_a') })),
    ),
    [
      { kind: 'remove_field', table: 'equipamiento', field: 'asignado_a' },
      { kind: 'drop_index', table: 'equipamiento', name: 'ix_equipamiento_asignado_a' },
    ],
  )
})

t.test('removing a module drops its indexes, then remove_module archives its table (unsafe)', async (t) => {
  const steps = planTo({ ...base, modules: base.modules.filter((m) => m.name !== 'turnos') })
  const indexes = compileService(base).moduleByName.get('turnos')?.table.indexes ?? []
  t.ok(indexes.length >= 3, 'turnos has indexes')
  // Their names are the module's: left on the archive, they would stop the module being added again.
  t.strictSame(steps, [
    ...indexes.map((i) => ({ kind: 'drop_index', table: 'turnos', name: i.name })),
    { kind: 'remove_module', table: 'turnos' },
  ])
  t.equal(isUnsafe(steps.at(-1) as MigrationStep), true)
  t.equal(steps.filter((s) => isUnsafe(s)).length, 1, 'only the archive needs --allow-data-loss')
})

t.test(
  'a removed module is archived before a new one is created: the new one may take the names it frees',
  async (t) => {
    const turnos = base.modules.find((m) => m.name === 'turnos')
    if (turnos === undefined) return t.fail('turnos in the shipped file')
    const steps = planTo({
      ...base,
      modules: [...base.modules.filter((m) => m.name !== 'turnos'), { ...turnos, name: 'guardias', prefix: 'GUA' }],
    })
    const kinds = steps.map((s) => s.kind)
    t.ok(kinds.lastIndexOf('remove_module') < kinds.indexOf('create_table'), kinds.join(', '))
    t.ok(kinds.lastIndexOf('drop_index') < kinds.indexOf('create_index'), 'its indexes are dropped first too')
  },
)

t.test('renamed_from renames the column and keeps the data (a safe step)', async (t) => {
  const steps = planTo(
    editField(base, 'vehiculos', 'marca', (f) => ({ ...f, name: 'fabricante', renamedFrom: 'marca' })),
  )
  t.strictSame(steps, [{ kind: 'rename_column', table: 'vehiculos', from: 'marca', to: 'fabricante' }])
  t.equal(isUnsafe(steps[0] as MigrationStep), false)
})

t.test('renamed_from on an indexed field renames the column and rebuilds its index under the new name', async (t) => {
  t.strictSame(
    planTo(
      editField(base, 'equipamiento', 'asignado_a', (f) => ({ ...f, name: 'responsable', renamedFrom: 'asignado_a' })),
    ),
    [
      { kind: 'rename_column', table: 'equipamiento', from: 'asignado_a', to: 'responsable' },
      { kind: 'drop_index', table: 'equipamiento', name: 'ix_equipamiento_asignado_a' },
      {
        kind: 'create_index',
        table: 'equipamiento',
        index: { name: 'ix_equipamiento_responsable', columns: ['responsable'], unique: false, liveOnly: true },
      },
    ],
  )
})

t.test('D16: renamed_from on an encrypted field renames its blind index column too', async (t) => {
  const steps = planTo(editField(base, 'personal', 'nif', (f) => ({ ...f, name: 'documento', renamedFrom: 'nif' })))
  t.strictSame(steps, [
    { kind: 'rename_column', table: 'personal', from: 'nif', to: 'documento' },
    { kind: 'rename_column', table: 'personal', from: '_bidx_nif', to: '_bidx_documento' },
    { kind: 'drop_index', table: 'personal', name: 'ux_personal_nif' },
    {
      kind: 'create_index',
      table: 'personal',
      index: {
        name: 'ux_personal_documento',
        columns: ['_bidx_documento'],
        unique: true,
        liveOnly: true,
        field: 'documento',
      },
    },
  ])
})

t.test('D14: renamed_from does not hide the other changes of the same field', async (t) => {
  t.strictSame(
    planTo(
      editField(base, 'vehiculos', 'km_actuales', (f) => ({
        ...f,
        name: 'kilometros',
        renamedFrom: 'km_actuales',
        type: 'decimal',
      })),
    ),
    [
      { kind: 'rename_column', table: 'vehiculos', from: 'km_actuales', to: 'kilometros' },
      { kind: 'change_type', table: 'vehiculos', field: 'kilometros', from: 'integer', to: 'decimal' },
    ],
  )
  t.strictSame(
    planTo(
      editField(base, 'vehiculos', 'marca', (f) => ({
        ...f,
        name: 'fabricante',
        renamedFrom: 'marca',
        encrypted: true,
      })),
    ),
    [
      { kind: 'rename_column', table: 'vehiculos', from: 'marca', to: 'fabricante' },
      { kind: 'encrypt_field', table: 'vehiculos', field: 'fabricante' },
      { kind: 'add_column', table: 'vehiculos', column: { name: '_bidx_fabricante', storage: 'text', nullable: true } },
    ],
    'an encrypted rename still encrypts the existing plaintext, and gets its blind-index column',
  )
  t.strictSame(
    planTo(
      editField(base, 'vehiculos', 'marca', (f) => ({
        ...f,
        name: 'fabricante',
        renamedFrom: 'marca',
        required: true,
      })),
    ),
    [
      { kind: 'rename_column', table: 'vehiculos', from: 'marca', to: 'fabricante' },
      { kind: 'require_field', table: 'vehiculos', field: 'fabricante' },
    ],
  )
})

t.test('renamed_from naming a field the database never had is an ordinary new field', async (t) => {
  t.strictSame(planTo(addField(base, 'vehiculos', field('color', 'string', { renamedFrom: 'colour' }))), [
    { kind: 'add_column', table: 'vehiculos', column: { name: 'color', storage: 'text', nullable: true } },
  ])
})

t.test('changing a field type is change_type, which is unsafe', async (t) => {
  const steps = planTo(editField(base, 'vehiculos', 'km_actuales', (f) => ({ ...f, type: 'decimal' })))
  t.strictSame(steps, [
    { kind: 'change_type', table: 'vehiculos', field: 'km_actuales', from: 'integer', to: 'decimal' },
  ])
  t.equal(isUnsafe(steps[0] as MigrationStep), true)
})

t.test('a field that changes type has its indexes rebuilt on its new column, unique ones too', async (t) => {
  const unique = planTo(editField(base, 'vehiculos', 'matricula', (f) => ({ ...f, type: 'integer' })))
  t.equal(unique.length, 3)
  t.match(
    unique,
    [
      { kind: 'change_type', table: 'vehiculos', field: 'matricula', from: 'string', to: 'integer' },
      { kind: 'drop_index', table: 'vehiculos', name: 'ux_vehiculos_matricula' },
      {
        kind: 'create_index',
        table: 'vehiculos',
        index: { name: 'ux_vehiculos_matricula', columns: ['matricula'], unique: true, liveOnly: true },
      },
    ],
    'else the unique index would follow the archived column and the new one would have none',
  )
  const composite = planTo(
    editField(base, 'denuncias', 'prioridad', (f) => ({ ...f, type: 'integer', enum: undefined, default: undefined })),
  )
  const rebuilt = (kind: 'drop_index' | 'create_index') =>
    composite.flatMap((s) => (s.kind === kind ? [s.kind === 'drop_index' ? s.name : s.index.name] : [])).sort()
  t.strictSame(
    rebuilt('drop_index'),
    ['cx_denuncias__estado__prioridad', 'ix_denuncias_prioridad'],
    'the indexes on the field, dropped; others untouched',
  )
  t.strictSame(
    rebuilt('create_index'),
    ['cx_denuncias__estado__prioridad', 'ix_denuncias_prioridad'],
    'and created again',
  )
})

t.test('D14: turning encryption on or off is encrypt_field / decrypt_field, both unsafe', async (t) => {
  const on = planTo(editField(base, 'vehiculos', 'bastidor', (f) => ({ ...f, encrypted: true })))
  t.match(on, [{ kind: 'encrypt_field', table: 'vehiculos', field: 'bastidor' }])
  t.ok(
    on.some((s) => s.kind === 'add_column' && s.column.name === '_bidx_bastidor'),
    'the blind-index column is added before its index',
  )
  t.ok(on.filter((s) => s.kind !== 'encrypt_field').every((s) => !isUnsafe(s)))
  t.ok(on.every((s) => s.kind !== 'decrypt_field'))
  const off = planTo(editField(base, 'personal', 'fecha_nacimiento', (f) => ({ ...f, encrypted: false })))
  t.match(off, [{ kind: 'decrypt_field', table: 'personal', field: 'fecha_nacimiento' }])
  t.equal(isUnsafe(on[0] as MigrationStep), true)
  t.equal(isUnsafe(off[0] as MigrationStep), true)
})

t.test('D4: a narrower enum is narrow_enum naming the removed values; a wider one plans nothing', async (t) => {
  t.strictSame(planTo(editField(base, 'vehiculos', 'estado', (f) => ({ ...f, enum: ['operativo', 'baja'] }))), [
    { kind: 'narrow_enum', table: 'vehiculos', field: 'estado', removed: ['taller'], allowed: ['operativo', 'baja'] },
  ])
  t.strictSame(
    planTo(editField(base, 'vehiculos', 'estado', (f) => ({ ...f, enum: ['operativo', 'taller', 'baja', 'reserva'] }))),
    [],
  )
  const steps = planTo(editField(base, 'vehiculos', 'marca', (f) => ({ ...f, enum: ['Seat', 'Renault'] })))
  t.match(
    steps,
    [{ kind: 'narrow_enum', table: 'vehiculos', field: 'marca', removed: [] }],
    'a free field that gets an enum',
  )
  t.equal(isUnsafe(steps[0] as MigrationStep), false, 'checked against the data, not refused outright')
})

t.test('index: true added creates the index; removed drops it', async (t) => {
  t.strictSame(planTo(editField(base, 'vehiculos', 'marca', (f) => ({ ...f, index: true }))), [
    {
      kind: 'create_index',
      table: 'vehiculos',
      index: { name: 'ix_vehiculos_marca', columns: ['marca'], unique: false, liveOnly: true },
    },
  ])
  t.strictSame(planTo(editField(base, 'denuncias', 'tipo', (f) => ({ ...f, index: false }))), [
    { kind: 'drop_index', table: 'denuncias', name: 'ix_denuncias_tipo' },
  ])
})

const setIndexes = (config: ModulesConfig, module: string, indexes: readonly (readonly string[])[]) =>
  editModule(config, module, (m) => ({ ...m, indexes }))

t.test('a composite index declared in indexes: is created on live records, a safe step', async (t) => {
  const steps = planTo(setIndexes(base, 'turnos', [['agente_id', 'fecha']]))
  t.strictSame(steps, [
    {
      kind: 'create_index',
      table: 'turnos',
      index: { name: 'cx_turnos__agente_id__fecha', columns: ['agente_id', 'fecha'], unique: false, liveOnly: true },
    },
  ])
  t.notOk(steps.some(isUnsafe), 'applied at startup')
})

t.test('a composite index taken out of indexes: is dropped', async (t) => {
  t.strictSame(planTo(setIndexes(base, 'denuncias', [['agente_asignado', 'estado']])), [
    { kind: 'drop_index', table: 'denuncias', name: 'cx_denuncias__estado__prioridad' },
  ])
})

t.test('reordering the fields of a composite index drops it and creates the new one', async (t) => {
  const steps = planTo(
    setIndexes(base, 'denuncias', [
      ['prioridad', 'estado'],
      ['agente_asignado', 'estado'],
    ]),
  )
  t.strictSame(steps, [
    { kind: 'drop_index', table: 'denuncias', name: 'cx_denuncias__estado__prioridad' },
    {
      kind: 'create_index',
      table: 'denuncias',
      index: {
        name: 'cx_denuncias__prioridad__estado',
        columns: ['prioridad', 'estado'],
        unique: false,
        liveOnly: true,
      },
    },
  ])
  t.notOk(steps.some(isUnsafe))
})

t.test('a field of a composite index encrypted later moves the index to its blind index column', async (t) => {
  const encrypted = editField(base, 'denuncias', 'agente_asignado', (f) => ({ ...f, encrypted: true }))
  t.match(
    planTo(encrypted).filter((s) => s.kind === 'drop_index' || s.kind === 'create_index'),
    [
      { kind: 'drop_index', name: 'ix_denuncias_agente_asignado' },
      { kind: 'drop_index', name: 'cx_denuncias__agente_asignado__estado' },
      { kind: 'create_index', index: { name: 'ix_denuncias_agente_asignado', columns: ['_bidx_agente_asignado'] } },
      {
        kind: 'create_index',
        index: { name: 'cx_denuncias__agente_asignado__estado', columns: ['_bidx_agente_asignado', 'estado'] },
      },
    ],
  )
})

t.test('renamed_from on a field of a composite index renames the column and rebuilds the index', async (t) => {
  const renamed = setIndexes(
    editField(base, 'denuncias', 'prioridad', (f) => ({ ...f, name: 'urgencia', renamedFrom: 'prioridad' })),
    'denuncias',
    [
      ['estado', 'urgencia'],
      ['agente_asignado', 'estado'],
    ],
  )
  const steps = planTo(renamed)
  t.strictSame(steps, [
    { kind: 'rename_column', table: 'denuncias', from: 'prioridad', to: 'urgencia' },
    { kind: 'drop_index', table: 'denuncias', name: 'ix_denuncias_prioridad' },
    { kind: 'drop_index', table: 'denuncias', name: 'cx_denuncias__estado__prioridad' },
    {
      kind: 'create_index',
      table: 'denuncias',
      index: { name: 'ix_denuncias_urgencia', columns: ['urgencia'], unique: false, liveOnly: true },
    },
    {
      kind: 'create_index',
      table: 'denuncias',
      index: {
        name: 'cx_denuncias__estado__urgencia',
        columns: ['estado', 'urgencia'],
        unique: false,
        liveOnly: true,
      },
    },
  ])
  t.notOk(steps.some(isUnsafe), 'a rename with its index is applied at startup')
})

t.test('D12: unique added creates a unique index on live records', async (t) => {
  t.strictSame(planTo(editField(base, 'vehiculos', 'marca', (f) => ({ ...f, unique: true }))), [
    {
      kind: 'create_index',
      table: 'vehiculos',
      index: {
        name: 'ux_vehiculos_marca',
        columns: ['marca'],
        unique: true,
        liveOnly: true,
        field: 'marca',
      },
    },
  ])
})

t.test('a tenth module is created with its table and indexes, the other nine untouched', async (t) => {
  const withTenth = addTenth(base)
  const steps = planTo(withTenth)
  const spec = specsOf(withTenth).at(-1)
  if (spec === undefined) return t.fail('no spec')
  t.strictSame(steps, [
    { kind: 'create_table', table: spec.table },
    ...spec.table.indexes.map((index) => ({ kind: 'create_index', table: 'objetos', index })),
  ])
})

function addTenth(config: ModulesConfig): ModulesConfig {
  return {
    ...config,
    modules: [
      ...config.modules,
      { name: 'objetos', prefix: 'OBJ', fields: [field('descripcion', 'text', { required: true })], indexes: [] },
    ],
  }
}

t.test('every step is described in one Spanish line', async (t) => {
  t.equal(
    describeStep({ kind: 'rename_column', table: 'vehiculos', from: 'marca', to: 'fabricante' }),
    "Renombrar 'vehiculos.marca' a 'fabricante' conservando los datos",
  )
  t.equal(
    describeStep({
      kind: 'narrow_enum',
      table: 'vehiculos',
      field: 'estado',
      removed: ['taller'],
      allowed: ['operativo', 'baja'],
    }),
    "Restringir los valores de 'vehiculos.estado' (se quitan: taller)",
  )
  t.equal(
    describeStep({ kind: 'remove_module', table: 'turnos' }),
    "Quitar el módulo 'turnos' (sus datos se conservarían en la base de datos)",
  )
  const all = planMigration(EMPTY_SNAPSHOT, specsOf(base))
  t.ok(all.map(describeStep).every((line) => line.length > 0 && !line.includes('\n')))
})

t.test('the snapshot records what the plan compares: type, encryption, required and enum per field', async (t) => {
  t.strictSame(baseline.modules['vehiculos']?.fields['estado'], {
    type: 'string',
    encrypted: false,
    required: false,
    enum: ['operativo', 'taller', 'baja'],
  })
  t.strictSame(baseline.modules['personal']?.fields['nif'], { type: 'string', encrypted: true, required: false })
  t.same(
    Object.keys(baseline.modules),
    base.modules.map((m) => m.name),
  )
})
