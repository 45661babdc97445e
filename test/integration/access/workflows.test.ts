// State workflows (D28): every move of every shipped workflow allowed and every other
// refused (409 naming the field, the current state and the allowed next states), moves that
// require a field (400 Datos requeridos), read-only fields by state (409), final states final
// for everyone, superadmin included. The table is written from the text, not read from
// modules.yaml.
import t from 'tap'
import { startTestApi, VALID, type TestApi } from '../../helpers/api.js'

const MOVES: Record<string, { field: string; moves: Record<string, string[]> }> = {
  sanciones: {
    field: 'estado',
    moves: {
      borrador: ['notificada', 'anulada'],
      notificada: ['alegacion', 'firme', 'anulada'],
      alegacion: ['firme', 'anulada'],
      firme: ['cobrada', 'anulada'],
      cobrada: [],
      anulada: [],
    },
  },
  denuncias: {
    field: 'estado',
    moves: {
      pendiente: ['investigacion', 'archivada'],
      investigacion: ['archivada', 'judicializada'],
      archivada: ['investigacion'],
      judicializada: [],
    },
  },
  sala092: { field: 'estado', moves: { pendiente: ['en_curso', 'resuelta'], en_curso: ['resuelta'], resuelta: [] } },
  turnos: {
    field: 'estado',
    moves: {
      planificado: ['confirmado', 'ausencia'],
      confirmado: ['realizado', 'ausencia'],
      realizado: [],
      ausencia: [],
    },
  },
  vehiculos: { field: 'estado', moves: { operativo: ['taller', 'baja'], taller: ['operativo', 'baja'], baja: [] } },
  equipamiento: {
    field: 'estado',
    moves: {
      disponible: ['asignado', 'mantenimiento', 'baja'],
      asignado: ['disponible', 'mantenimiento', 'baja'],
      mantenimiento: ['disponible', 'baja'],
      baja: [],
    },
  },
  personal: {
    field: 'situacion',
    moves: { activo: ['excedencia', 'baja', 'jubilado'], excedencia: ['activo'], baja: ['activo'], jubilado: [] },
  },
}
/** Final states, from the text: a record in one is read-only (F9), so a PUT is refused before any move. */
const FINAL: Record<string, string[]> = {
  sanciones: ['cobrada', 'anulada'],
  denuncias: ['judicializada'],
  sala092: ['resuelta'],
  vehiculos: ['baja'],
  equipamiento: ['baja'],
  personal: ['jubilado'],
}
/** What a move needs sent with it. */
const WITH: Record<string, Record<string, unknown>> = {
  notificada: { fecha_notificacion: '2026-11-20' },
  cobrada: { fecha_pago: '2026-11-22' },
}

/** A path of states from the first to `target` through the allowed moves. */
function pathTo(moves: Record<string, string[]>, target: string): string[] {
  const first = Object.keys(moves)[0] as string
  const queue: string[][] = [[first]]
  while (queue.length > 0) {
    const path = queue.shift() as string[]
    const last = path[path.length - 1] as string
    if (last === target) return path.slice(1)
    for (const next of moves[last] ?? []) if (!path.includes(next)) queue.push([...path, next])
  }
  throw new Error(`${target} unreachable`)
}

async function recordIn(api: TestApi, module: string, state: string): Promise<string> {
  const { field, moves } = MOVES[module]!
  const record = await api.create(module, VALID[module]!())
  for (const step of pathTo(moves, state)) {
    const reply = await api.request('PUT', `/${module}/${record._id}`, {
      token: await api.adminToken(),
      body: { [field]: step, ...WITH[step] },
    })
    if (reply.status !== 200) throw new Error(`${module} -> ${step}: ${JSON.stringify(reply.body)}`)
  }
  return record._id as string
}

for (const module of Object.keys(MOVES)) {
  t.test(
    `D28: ${module}: every allowed move succeeds and every other is 409 with the allowed next states`,
    async (t) => {
      const api = await startTestApi(t)
      const token = await api.adminToken()
      const { field, moves } = MOVES[module]!
      for (const [from, allowed] of Object.entries(moves)) {
        const stay = await recordIn(api, module, from)
        for (const to of Object.keys(moves).filter((s) => s !== from && !allowed.includes(s))) {
          const reply = await api.request('PUT', `/${module}/${stay}`, { token, body: { [field]: to, ...WITH[to] } })
          // The old answer here, 'Transición de estado no permitida', became the final-state 409 (F9).
          if (FINAL[module]?.includes(from) === true) {
            t.match(reply.body, { success: false, error: 'Registro no modificable en su estado final' }, from)
            t.equal(reply.status, 409)
            continue
          }
          t.same(
            reply.body,
            {
              success: false,
              error: 'Transición de estado no permitida',
              details: [
                {
                  field,
                  message:
                    allowed.length === 0
                      ? `Estado actual '${from}'; el rol 'superadmin' no puede cambiarlo desde este estado`
                      : `Estado actual '${from}'; estados siguientes permitidos para el rol 'superadmin': ${allowed.join(', ')}`,
                },
              ],
            },
            `${from} -> ${to} refused`,
          )
          t.equal(reply.status, 409)
        }
        const unchanged = await api.request('GET', `/${module}/${stay}`, { token })
        t.equal(unchanged.body.data[field], from, `${from}: refused moves changed nothing`)
        for (const to of allowed) {
          const id = await recordIn(api, module, from)
          const reply = await api.request('PUT', `/${module}/${id}`, { token, body: { [field]: to, ...WITH[to] } })
          t.equal(
            reply.status,
            200,
            `${from} -> ${to} allowed ${reply.status === 200 ? '' : JSON.stringify(reply.body)}`,
          )
        }
      }
    },
  )
}

t.test('D28: a move missing a required field is 400 Datos requeridos naming it', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  const id = await recordIn(api, 'sanciones', 'borrador')
  const reply = await api.request('PUT', `/sanciones/${id}`, { token, body: { estado: 'notificada' } })
  t.equal(reply.status, 400)
  t.same(reply.body, {
    success: false,
    error: 'Datos requeridos',
    details: [
      { field: 'fecha_notificacion', message: "El cambio de 'borrador' a 'notificada' requiere 'fecha_notificacion'" },
    ],
  })
  const firme = await recordIn(api, 'sanciones', 'firme')
  const pay = await api.request('PUT', `/sanciones/${firme}`, { token, body: { estado: 'cobrada' } })
  t.equal(pay.status, 400)
  t.equal(pay.body.details[0].field, 'fecha_pago')
  const earlier = await recordIn(api, 'sanciones', 'borrador')
  await api.request('PUT', `/sanciones/${earlier}`, { token, body: { fecha_notificacion: '2026-11-20' } })
  t.equal(
    (await api.request('PUT', `/sanciones/${earlier}`, { token, body: { estado: 'notificada' } })).status,
    200,
    'a value stored earlier satisfies it',
  )
})

t.test('D28: amounts are read-only from firme on: 409 naming the field, nothing changed', async (t) => {
  const api = await startTestApi(t)
  const token = await api.adminToken()
  const borrador = await recordIn(api, 'sanciones', 'borrador')
  t.equal(
    (await api.request('PUT', `/sanciones/${borrador}`, { token, body: { importe: 150 } })).status,
    200,
    'editable before firme',
  )
  // cobrada and anulada, final, refuse every change (F9: final-states.test.ts).
  for (const state of ['firme']) {
    const id = await recordIn(api, 'sanciones', state)
    const reply = await api.request('PUT', `/sanciones/${id}`, {
      token,
      body: { importe: 1, lugar_infraccion: 'Otra calle' },
    })
    t.equal(reply.status, 409, state)
    t.same(reply.body, {
      success: false,
      error: 'Campo no modificable en el estado actual del registro',
      details: [{ field: 'importe', message: `'importe' no se puede modificar con el registro en estado '${state}'` }],
    })
    const after = await api.request('GET', `/sanciones/${id}`, { token })
    t.equal(after.body.data.importe, 200)
    t.equal(after.body.data.lugar_infraccion, 'Calle Real 3', 'nothing of the refused write applied')
    t.equal(
      (await api.request('PUT', `/sanciones/${id}`, { token, body: { importe: 200 } })).status,
      200,
      'sending the same value is no change',
    )
  }
})

t.test('D28: archivada -> investigacion is for jefe and above; oficial sees the moves it may make', async (t) => {
  const api = await startTestApi(t)
  const oficial = await api.userWithRole('oficial')
  const jefe = await api.userWithRole('jefe')
  const id = await recordIn(api, 'denuncias', 'archivada')
  const refused = await api.request('PUT', `/denuncias/${id}`, {
    token: oficial.token,
    body: { estado: 'investigacion' },
  })
  t.equal(refused.status, 409)
  t.same(refused.body.details, [
    { field: 'estado', message: "Estado actual 'archivada'; el rol 'oficial' no puede cambiarlo desde este estado" },
  ])
  t.equal(
    (await api.request('PUT', `/denuncias/${id}`, { token: jefe.token, body: { estado: 'investigacion' } })).status,
    200,
  )
})
