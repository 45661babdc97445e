// access: and workflow: in modules.yaml: parsed into typed definitions, and every
// unknown field, role, state or user attribute, unindexed scope and unreachable state reported
// with file:line:column like the other rules.
import t from 'tap'
import { validateModulesSource } from '../../../src/config/validate.js'
import { shippedConfig } from '../support/config.js'

const BASE = `service:
  accounts: { module: usuarios, username: username, password: password, role: rol, active: activo, profile: [username] }
roles:
  superadmin: { permissions: ['*.*'] }
  agente: { permissions: [casos.ver, casos.editar] }
modules:
  usuarios:
    prefix: USR
    fields:
      username: { type: string, required: true, unique: true }
      password: { type: password, required: true }
      rol: { type: role, required: true }
      activo: { type: boolean, default: true }
      personal_id: { type: string }
  casos:
    prefix: CAS
    fields:
      titulo: { type: string, required: true }
      asignado: { type: string, index: true }
      notas: { type: text }
      importe: { type: decimal }
      dni: { type: string, encrypted: true }
      estado: { type: string, state: true, enum: [abierto, cerrado, archivado] }
`
// Line 23 is the last line of BASE; what follows starts at line 24.
const ACCESS = `    access:
      agente:
        scope:
          any:
            - asignado: $user.personal_id
            - _created_by: $user.id
        cannot_read: [notas]
        cannot_write: [asignado]
        defaults: { asignado: $user.personal_id }
`
const WORKFLOW = `    workflow:
      moves:
        - { from: abierto, to: cerrado, requires: [notas] }
        - { from: cerrado, to: archivado, roles: [superadmin] }
      final: [archivado]
      final_editable_by: [superadmin]
      readonly:
        - { fields: [importe], in: [cerrado, archivado] }
`

function problemsOf(text: string): string[] {
  const result = validateModulesSource(text, 'x.yaml')
  return result.ok ? [] : result.problems.map((p) => `${p.line}:${p.column} ${p.message}`)
}

t.test('access and workflow become typed definitions', async (t) => {
  const result = validateModulesSource(BASE + ACCESS + WORKFLOW, 'x.yaml')
  if (!result.ok) return t.fail(result.problems.map((p) => p.message).join('\n'))
  const casos = result.config.modules.find((m) => m.name === 'casos')
  t.same(casos?.access, [
    {
      role: 'agente',
      scope: {
        any: [
          {
            field: 'asignado',
            value: { user: 'personal_id' },
            at: ['modules', 'casos', 'access', 'agente', 'scope', 'any', 0, 'asignado'],
          },
          {
            field: '_created_by',
            value: { user: 'id' },
            at: ['modules', 'casos', 'access', 'agente', 'scope', 'any', 1, '_created_by'],
          },
        ],
      },
      cannotRead: ['notas'],
      cannotWrite: ['asignado'],
      defaults: [{ field: 'asignado', value: { user: 'personal_id' } }],
    },
  ])
  t.same(casos?.workflow, {
    moves: [
      { from: ['abierto'], to: ['cerrado'], requires: ['notas'] },
      { from: ['cerrado'], to: ['archivado'], roles: ['superadmin'], requires: [] },
    ],
    final: ['archivado'],
    finalEditableBy: ['superadmin'],
    readonly: [{ fields: ['importe'], in: ['cerrado', 'archivado'] }],
  })
})

t.test('the shipped modules.yaml declares scopes, field rules and a workflow for every state field', async (t) => {
  const config = shippedConfig()
  for (const mod of config.modules)
    if (mod.fields.some((f) => f.state)) t.ok(mod.workflow, `${mod.name} has a workflow`)
  const denuncias = config.modules.find((m) => m.name === 'denuncias')
  t.same(
    denuncias?.access?.map((a) => a.role),
    ['agente', 'consulta'],
  )
})

const cases: [string, string, string][] = [
  [
    'an unknown role',
    BASE + ACCESS.replace('      agente:', '      agentes:'),
    "25:7 casos: 'access' nombra un rol que no existe: 'agentes'. ¿Quería decir 'agente'?",
  ],
  [
    'a scope on an unknown field',
    BASE + ACCESS.replace('- asignado:', '- asignada:'),
    "28:15 casos: la condición sobre 'asignada' nombra un campo que no existe en el módulo. ¿Quería decir 'asignado'?",
  ],
  [
    'a scope on a field without index',
    BASE + ACCESS.replace('- asignado:', '- notas:'),
    "28:15 casos: la condición sobre 'notas': el campo no tiene índice",
  ],
  [
    'a scope on an encrypted field',
    BASE + ACCESS.replace('- asignado:', '- dni:'),
    "28:15 casos: la condición sobre 'dni': un campo cifrado no se puede usar en un ámbito",
  ],
  [
    'an unknown user attribute',
    BASE + ACCESS.replace('- asignado: $user.personal_id', '- asignado: $user.personal'),
    "28:25 '$user.personal' no es un dato del usuario",
  ],
  [
    'a literal outside the enum',
    BASE + ACCESS.replace('- asignado: $user.personal_id', '- estado: abierta'),
    "28:23 'abierta' no es un valor de estado",
  ],
  [
    'cannot_read of an unknown field',
    BASE + ACCESS.replace('cannot_read: [notas]', 'cannot_read: [nota]'),
    "30:23 casos: cannot_read nombra un campo que no existe: 'nota'.",
  ],
  [
    'cannot_write of an unknown field',
    BASE + ACCESS.replace('cannot_write: [asignado]', 'cannot_write: [asignada]'),
    "31:24 casos: cannot_write nombra un campo que no existe: 'asignada'.",
  ],
  [
    'F10: a field the scope compares with the user that the role may write',
    BASE + ACCESS.replace('cannot_write: [asignado]', 'cannot_write: [notas]'),
    "28:15 casos: el rol 'agente' puede escribir 'asignado', que su ámbito compara con $user.personal_id",
  ],
  [
    'a default of an unknown field',
    BASE + ACCESS.replace('defaults: { asignado:', 'defaults: { asignada:'),
    "32:21 casos: 'defaults' nombra un campo que no existe",
  ],
  [
    'an unknown state in a move',
    BASE + WORKFLOW.replace('to: cerrado,', 'to: cerada,'),
    "26:32 casos: 'cerada' no es un estado del campo 'estado' (estados: abierto, cerrado, archivado). ¿Quería decir 'cerrado'?",
  ],
  [
    'an unknown role in a move',
    BASE + WORKFLOW.replace('roles: [superadmin]', 'roles: [jefe]'),
    "27:51 casos: el movimiento nombra un rol que no existe: 'jefe'.",
  ],
  [
    'a move out of a final state',
    BASE + WORKFLOW.replace('final: [archivado]', 'final: [cerrado, archivado]'),
    "27:19 casos: 'cerrado' es un estado final",
  ],
  [
    'an unreachable state',
    BASE + WORKFLOW.replace('        - { from: cerrado, to: archivado, roles: [superadmin] }\n', ''),
    "25:7 casos: el estado 'archivado' no se alcanza desde abierto",
  ],
  [
    'a required field that does not exist',
    BASE + WORKFLOW.replace('requires: [notas]', 'requires: [nota]'),
    "26:52 casos: requires nombra un campo que no existe: 'nota'.",
  ],
  [
    'the state field made read-only',
    BASE + WORKFLOW.replace('fields: [importe]', 'fields: [estado]'),
    '31:21 casos: el campo de estado cambia con los movimientos',
  ],
  [
    'F9: an unknown role allowed to edit final records',
    BASE + WORKFLOW.replace('final_editable_by: [superadmin]', 'final_editable_by: [superadmn]'),
    "29:27 casos: 'final_editable_by' nombra un rol que no existe: 'superadmn'. ¿Quería decir 'superadmin'?",
  ],
  [
    'F9: roles allowed to edit final records of a workflow without final states',
    BASE + WORKFLOW.replace('      final: [archivado]\n', ''),
    "28:7 casos: 'final_editable_by' sin estados finales ('final') no tiene efecto.",
  ],
  [
    'a workflow without a state field',
    BASE.replace(', state: true', '') + WORKFLOW,
    "24:5 casos: 'workflow' necesita un campo de estado",
  ],
  [
    "an unknown key in a role's access",
    BASE + ACCESS.replace('cannot_read:', 'cannot_see:'),
    "30:9 modules.casos.access.agente.cannot_see: Clave desconocida 'cannot_see'.",
  ],
]

for (const [what, text, expected] of cases) {
  t.test(`records validate reports ${what} with line and column`, async (t) => {
    const problems = problemsOf(text)
    t.ok(
      problems.some((p) => p.startsWith(expected)),
      expected,
      { found: problems },
    )
  })
}

t.test(
  'F10: a role that cannot create or edit may keep such a field writable; so may one that cannot_write it',
  async (t) => {
    const readOnly =
      BASE.replace('casos.ver, casos.editar', 'casos.ver') +
      ACCESS.replace('cannot_write: [asignado]', 'cannot_write: [notas]')
    t.same(problemsOf(readOnly), [])
    t.same(problemsOf(BASE + ACCESS), [])
    const config = shippedConfig()
    const sanciones = config.modules.find((m) => m.name === 'sanciones')
    t.same(sanciones?.access?.find((a) => a.role === 'agente')?.cannotWrite, ['agente_denunciante'], 'shipped (F10)')
  },
)
