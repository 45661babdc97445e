// access: and workflow: compiled once into data (STYLE 9): scopes as conditions for
// db/ to turn into SQL, field rules as sets, moves as a from -> to map with roles and requirements.
import t from 'tap'
import { moduleOf, shippedService } from '../support/config.js'

const service = shippedService()

t.test('the agente scope of denuncias is an or of two indexed matches on the acting user', async (t) => {
  const agente = moduleOf(service, 'denuncias').access.get('agente')
  t.same(agente?.scope, {
    kind: 'any',
    of: [
      {
        kind: 'match',
        field: 'agente_asignado',
        column: 'agente_asignado',
        storage: 'text',
        value: { user: 'personal_id' },
      },
      { kind: 'match', field: '_created_by', column: '_created_by', storage: 'text', value: { user: 'id' } },
    ],
  })
  t.same([...(agente?.cannotWrite ?? [])], ['agente_asignado'])
  t.same(agente?.defaults, [{ field: 'agente_asignado', value: { user: 'personal_id' } }])
  t.same([...(moduleOf(service, 'denuncias').access.get('consulta')?.cannotRead ?? [])], ['observaciones'])
  t.notOk(
    moduleOf(service, 'denuncias').access.has('oficial'),
    'oficial reads and edits every denuncia (docs/decisions.md)',
  )
})

t.test('a single condition is not wrapped in an and', async (t) => {
  t.same(moduleOf(service, 'atestados').access.get('agente')?.scope, {
    kind: 'match',
    field: '_created_by',
    column: '_created_by',
    storage: 'text',
    value: { user: 'id' },
  })
})

t.test('the accounts load the user fields that rules name ($user.personal_id)', async (t) => {
  t.same(service.accounts.userFields, ['personal_id'])
})

t.test('the sanciones workflow as a lookup table', async (t) => {
  const workflow = moduleOf(service, 'sanciones').workflow
  if (workflow === undefined) return t.fail('no workflow')
  t.equal(workflow.field, 'estado')
  t.same(workflow.createIn, ['borrador'], 'D6: created in the first state unless the workflow says otherwise')
  t.same([...workflow.final], ['cobrada', 'anulada'])
  t.same([...(workflow.moves.get('borrador')?.keys() ?? [])], ['notificada', 'anulada'])
  t.same(workflow.moves.get('borrador')?.get('notificada'), { roles: undefined, requires: ['fecha_notificacion'] })
  t.same(workflow.moves.get('firme')?.get('cobrada'), { roles: undefined, requires: ['fecha_pago'] })
  t.equal(workflow.moves.get('cobrada'), undefined, 'a final state has no moves')
  t.same(workflow.readonlyIn.get('firme'), ['importe', 'importe_reducido', 'infraccion_codigo'])
  t.equal(workflow.readonlyIn.get('borrador'), undefined)
})

t.test('`from: *` expands to every state that is not final; a move restricted to roles keeps them', async (t) => {
  const vehiculos = moduleOf(service, 'vehiculos').workflow
  t.ok(vehiculos?.moves.get('operativo')?.has('baja'))
  t.ok(vehiculos?.moves.get('taller')?.has('baja'))
  t.equal(vehiculos?.moves.get('baja'), undefined)
  const denuncias = moduleOf(service, 'denuncias').workflow
  t.same(
    [...(denuncias?.moves.get('archivada')?.get('investigacion')?.roles ?? [])],
    ['jefe', 'administrador', 'superadmin'],
  )
})

t.test('a module without workflow or access compiles to none', async (t) => {
  t.equal(moduleOf(service, 'atestados').workflow, undefined)
  t.equal(moduleOf(service, 'usuarios').access.size, 0)
})
