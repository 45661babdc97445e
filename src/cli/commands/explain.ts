// `records explain <usuario> <módulo> [<id>]`: what a user may do in a module (and on one record)
// and which rule of modules.yaml decides it. Reads only; nothing is audited as a read
// of the record's values, which are not printed.
import type { Command } from '../command.js'
import { actingUserNamed, moduleNamed, withEnvironment } from '../environment.js'
import { explainModule, explainRecord } from '../../records/explain.js'
import { commandFailed, isAppError } from '../../errors.js'

const explainCommand: Command = {
  name: 'explain',
  summary: 'Explica qué puede hacer un usuario en un módulo (y en un registro) y qué regla lo decide',
  help: `
Uso: records explain <usuario> <módulo> [<id>]

Muestra los permisos del rol del usuario en el módulo, el ámbito de registros que ve (access:
scope de modules.yaml, con los valores del usuario), los campos que no lee o no escribe, los
valores que se rellenan al crear y los movimientos de estado que su rol puede hacer. Con <id>,
dice si el registro está en su ámbito (y qué condición se cumple), a qué estados puede pasar y
qué campos son de solo lectura en su estado. No muestra valores de los campos.`,
  options: {},
  positionals: { min: 2, max: 3 },
  async run(input) {
    const [username = '', moduleName = '', id] = input.positionals
    return withEnvironment(input, async (env) => {
      const spec = moduleNamed(env.spec, moduleName)
      const user = await actingUserNamed(env, username)
      const role = env.spec.roles.get(user.role)
      if (role === undefined) throw commandFailed(`El rol '${user.role}' del usuario no existe en modules.yaml`)
      const lines = [
        `Usuario ${username} (${user.id}), rol ${role.name}` +
          Object.entries(user.fields)
            .map(([k, v]) => `, ${k} ${v === null ? '(sin valor)' : String(v)}`)
            .join(''),
        ...explainModule(spec, role, user),
      ]
      if (id !== undefined) {
        const read = { reveal: false, actor: env.actor }
        const record = await env.store.get(spec, id, { ...read, user: null }).catch((error: unknown) => {
          if (isAppError(error) && error.statusCode === 404) return undefined
          throw error
        })
        // A blocked record in the user's scope answers 403 (D41): visible, and blocked.
        const answer =
          record === undefined
            ? undefined
            : await env.store.get(spec, id, { ...read, user }).then(
                () => 'ok',
                (error: unknown) => (isAppError(error) && error.code === 'RECORD_BLOCKED' ? 'blocked' : 'no'),
              )
        const visible = answer === 'ok' || answer === 'blocked'
        lines.push(...explainRecord(spec, role, user, { id, record, visible, blocked: answer === 'blocked' }))
      }
      input.stdout.write(`${lines.join('\n')}\n`)
      return 0
    })
  },
}

export const commands = [explainCommand]
