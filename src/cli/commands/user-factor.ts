// `records user factor-reset <user>` (D42): a lost phone without a recovery code left. Removes
// every second factor and recovery code of the account and ends its tokens, audited as
// `segundo_factor_reset` by `cli:<os user>`. Listed with the other `user` commands (user.ts).
import type { Command } from '../command.js'
import { withEnvironment, type Environment } from '../environment.js'
import { printLines } from '../output.js'

/** The command, given how user.ts finds an account by what the operator typed. */
export const factorReset = (accountId: (env: Environment, username: string) => Promise<string>): Command => ({
  name: 'user factor-reset',
  summary: 'Quita los segundos factores de una cuenta y cierra sus sesiones (D42)',
  help: `
Uso: records user factor-reset <usuario>

Quita todos los segundos factores (TOTP) y códigos de recuperación de la cuenta y hace que sus
tokens dejen de valer en todas las instancias: para quien perdió el teléfono y no le quedan
códigos de recuperación. La persona inicia sesión solo con su contraseña y vuelve a dar de alta
un factor (enseguida, si su rol lo exige). Queda en la auditoría como segundo_factor_reset.
Compruebe antes quién lo pide: es lo que querría quien conoce la contraseña ajena.`,
  options: {},
  positionals: { min: 1, max: 1 },
  async run(input) {
    const [username = ''] = input.positionals
    return withEnvironment(input, async (env) => {
      const id = await accountId(env, username)
      const removed = await env.factors.reset(id, { userId: env.actor })
      printLines(input, [
        `Segundo factor restablecido: '${username}' (${id}); factores quitados: ${removed}; ` +
          'sus sesiones se han cerrado',
      ])
      return 0
    })
  },
})
