// The per-request decisions of issue #14 against the compiled shipped modules.yaml: scopes
// resolved with the acting user, field rules and workflow moves. Pure: no database, no HTTP.
import t from 'tap'
import { resolveScope } from '../../../src/records/scope.js'
import { checkQueryReadable, checkWritable, withoutHidden, withUserDefaults } from '../../../src/records/field-rules.js'
import { checkCreation, checkUpdate, nextStates } from '../../../src/records/workflow.js'
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

t.test("#14: a scope is resolved with the user's values; a missing personal_id matches nothing", async (t) => {
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

t.test('#14: field rules', async (t) => {
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
    thrown(() => checkQueryReadable(denuncias, consulta, query)),
    { statusCode: 403, details: [{ field: 'observaciones' }] },
  )
  t.doesNotThrow(() => checkQueryReadable(denuncias, oficial, query))
})

t.test('#14: workflow decisions', async (t) => {
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
