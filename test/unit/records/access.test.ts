// The per-request decisions of need to know (D26-D28) against the compiled shipped modules.yaml: scopes
// resolved with the acting user, field rules and workflow moves. Pure: no database, no HTTP.
import t from 'tap'
import { resolveScope } from '../../../src/records/scope.js'
import { checkWritable, withoutHidden, withUserDefaults } from '../../../src/records/field-rules.js'
import { checkQueryAccess, queryReader } from '../../../src/records/query-access.js'
import { checkCreation, checkFinal, checkUpdate, nextStates } from '../../../src/records/workflow.js'
import { moduleOf, shippedService } from '../support/config.js'

const service = shippedService()
/** The error `work` throws (tap's t.throws types its pattern too narrowly for AppError's fields). */
const thrown = (work: () => void): unknown => {
  try {
    work()
  } catch (error) {
    return error
  }
  return undefined
}
const denuncias = moduleOf(service, 'denuncias')
const sanciones = moduleOf(service, 'sanciones')
const agente = { id: 'USR-2026-00002', role: 'agente', fields: { personal_id: 'PER-2026-00011' } }
const bare = { id: 'USR-2026-00003', role: 'agente', fields: { personal_id: null } }
const oficial = { id: 'USR-2026-00004', role: 'oficial', fields: {} }
const consulta = { id: 'USR-2026-00005', role: 'consulta', fields: {} }

t.test("a scope is resolved with the user's values; a missing personal_id matches nothing", async (t) => {
  t.same(resolveScope(denuncias, agente, 'read'), {
    kind: 'any',
    of: [
      { kind: 'in', column: 'agente_asignado', storage: 'text', values: ['PER-2026-00011'] },
      { kind: 'in', column: '_created_by', storage: 'text', values: ['USR-2026-00002'] },
    ],
  })
  t.same(resolveScope(denuncias, bare, 'read'), {
    kind: 'any',
    of: [
      { kind: 'in', column: 'agente_asignado', storage: 'text', values: [] },
      { kind: 'in', column: '_created_by', storage: 'text', values: ['USR-2026-00003'] },
    ],
  })
  t.equal(resolveScope(denuncias, oficial, 'read'), undefined, 'a role without scope sees the module')
  t.equal(resolveScope(denuncias, null, 'write'), undefined, 'no user: the operator')
})

t.test('field rules', async (t) => {
  t.match(
    thrown(() => checkWritable(denuncias, agente, { agente_asignado: 'PER-2026-00012' })),
    { statusCode: 403, details: [{ field: 'agente_asignado' }] },
  )
  t.doesNotThrow(() => checkWritable(denuncias, oficial, { agente_asignado: 'PER-2026-00012' }))
  t.same(withUserDefaults(denuncias, agente, { tipo: 'hurto' }), { tipo: 'hurto', agente_asignado: 'PER-2026-00011' })
  t.same(withUserDefaults(denuncias, bare, { tipo: 'hurto' }), { tipo: 'hurto' }, 'nothing to fill')
  t.same(withoutHidden({ a: 1, observaciones: 'x' }, new Set(['observaciones'])), { a: 1 })
  const query = {
    limit: 10,
    offset: 0,
    filters: [{ name: 'observaciones', column: 'observaciones', op: 'eq' as const, value: 'x', blind: false }],
    sort: [],
    fields: undefined,
    filtersEncrypted: false,
  }
  t.match(
    thrown(() => checkQueryAccess(denuncias, query, queryReader(denuncias, consulta.role, false))),
    { statusCode: 403, details: [{ field: 'observaciones' }] },
  )
  t.doesNotThrow(() => checkQueryAccess(denuncias, query, queryReader(denuncias, oficial.role, true)))
})

t.test('workflow decisions', async (t) => {
  const before = (values: Record<string, unknown>) => (name: string) => values[name]
  t.match(
    thrown(() => checkCreation(sanciones, { estado: 'firme' })),
    { statusCode: 409 },
  )
  t.doesNotThrow(() => checkCreation(sanciones, { estado: 'borrador' }))
  t.same(nextStates(denuncias.workflow!, 'archivada', 'oficial'), [])
  t.same(nextStates(denuncias.workflow!, 'archivada', 'jefe'), ['investigacion'])
  t.same(nextStates(sanciones.workflow!, 'cobrada', 'superadmin'), [], 'final for everyone')
  t.match(
    thrown(() => checkUpdate(sanciones, oficial, before({ estado: 'borrador' }), { estado: 'firme' })),
    {
      statusCode: 409,
      details: [
        {
          field: 'estado',
          message: "Estado actual 'borrador'; estados siguientes permitidos para el rol 'oficial': notificada, anulada",
        },
      ],
    },
  )
  t.match(
    thrown(() => checkUpdate(sanciones, oficial, before({ estado: 'borrador' }), { estado: 'notificada' })),
    { statusCode: 400, details: [{ field: 'fecha_notificacion' }] },
  )
  t.doesNotThrow(() =>
    checkUpdate(sanciones, oficial, before({ estado: 'borrador', fecha_notificacion: '2026-01-01' }), {
      estado: 'notificada',
    }),
  )
  t.match(
    thrown(() => checkUpdate(sanciones, oficial, before({ estado: 'firme', importe: 100 }), { importe: 90 })),
    { statusCode: 409, details: [{ field: 'importe' }] },
  )
  t.doesNotThrow(
    () => checkUpdate(sanciones, oficial, before({ estado: 'firme', importe: 100 }), { importe: 100 }),
    'the same value is no change',
  )
})

t.test('F9: what a state requires stays required; a final state is read-only for editing and deleting', async (t) => {
  const before = (values: Record<string, unknown>) => (name: string) => values[name]
  const workflow = sanciones.workflow!
  t.same(
    Object.fromEntries(workflow.requiredIn),
    {
      borrador: [],
      notificada: ['fecha_notificacion'],
      alegacion: ['fecha_notificacion'],
      firme: ['fecha_notificacion'],
      cobrada: ['fecha_notificacion', 'fecha_pago'],
      anulada: [],
    },
    'a field every way into the state required; anulada is reached from borrador too',
  )
  const notified = { estado: 'notificada', fecha_notificacion: '2026-01-01' }
  for (const cleared of [null, ''])
    t.match(
      thrown(() => checkUpdate(sanciones, oficial, before(notified), { fecha_notificacion: cleared })),
      {
        statusCode: 400,
        message: 'Datos requeridos',
        details: [{ field: 'fecha_notificacion', message: "El estado 'notificada' requiere 'fecha_notificacion'" }],
      },
    )
  t.match(
    thrown(() => checkUpdate(sanciones, oficial, before(notified), { estado: 'alegacion', fecha_notificacion: null })),
    { statusCode: 400, details: [{ field: 'fecha_notificacion', message: /'alegacion' requiere/ }] },
    'nor on the way to a later state',
  )
  t.doesNotThrow(() => checkUpdate(sanciones, oficial, before(notified), { fecha_notificacion: '2026-01-02' }))
  t.doesNotThrow(
    () => checkUpdate(sanciones, oficial, before({ estado: 'notificada' }), { infractor_nombre: 'X' }),
    'an imported record without it is refused only for clearing it',
  )
  t.doesNotThrow(() => checkUpdate(sanciones, oficial, before({ estado: 'borrador' }), { fecha_notificacion: null }))
  for (const state of ['cobrada', 'anulada']) {
    const admin = { id: 'USR-2026-00001', role: 'superadmin', fields: {} }
    t.match(
      thrown(() => checkUpdate(sanciones, admin, before({ estado: state }), { infractor_nombre: 'X' })),
      {
        statusCode: 409,
        code: 'FINAL_STATE',
        message: 'Registro no modificable en su estado final',
        details: [
          { field: 'estado', message: `El registro está en el estado final '${state}': su rol no puede modificarlo` },
        ],
      },
      `${state}: no PUT, superadmin included`,
    )
    t.match(
      thrown(() => checkFinal(sanciones, admin, before({ estado: state }), 'eliminar')),
      {
        statusCode: 409,
        details: [{ message: /no puede eliminarlo/ }],
      },
    )
    t.match(
      thrown(() => checkFinal(sanciones, null, before({ estado: state }), 'eliminar')),
      { statusCode: 409 },
    )
  }
  t.doesNotThrow(() => checkFinal(sanciones, oficial, before({ estado: 'firme' }), 'eliminar'))
  const declared = {
    ...sanciones,
    workflow: { ...workflow, finalEditableBy: new Set(['superadmin']) },
  }
  const admin = { id: 'USR-2026-00001', role: 'superadmin', fields: {} }
  t.doesNotThrow(() => checkUpdate(declared, admin, before({ estado: 'cobrada' }), { infractor_nombre: 'X' }))
  t.doesNotThrow(() => checkFinal(declared, admin, before({ estado: 'cobrada' }), 'eliminar'))
  t.match(
    thrown(() => checkUpdate(declared, oficial, before({ estado: 'cobrada' }), { infractor_nombre: 'X' })),
    {
      statusCode: 409,
    },
  )
  t.match(
    thrown(() => checkUpdate(declared, admin, before({ estado: 'cobrada', importe: 5 }), { importe: 6 })),
    { code: 'READ_ONLY_IN_STATE' },
    'a declared role still keeps the read-only fields',
  )
})
