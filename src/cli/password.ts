// Passwords never come from argv (visible in `ps` and shell history): a terminal prompt
// with echo off, asked twice, or the first line of standard input with --password-stdin.
import { type CommandInput } from './command.js'
import { commandFailed } from '../errors.js'

async function readAll(stream: NodeJS.ReadStream): Promise<string> {
  let text = ''
  for await (const chunk of stream) text += String(chunk)
  return text
}

function promptHidden(input: CommandInput, question: string): Promise<string> {
  const { stdin, stderr } = input
  return new Promise((resolve, reject) => {
    let typed = ''
    // Echo off before the question shows: an answer typed (or pasted) at once is not echoed.
    stdin.setRawMode(true)
    stderr.write(question)
    stdin.resume()
    stdin.setEncoding('utf8')
    const done = (error?: Error) => {
      stdin.setRawMode(false)
      stdin.pause()
      stdin.removeListener('data', onData)
      stderr.write('\n')
      if (error === undefined) resolve(typed)
      else reject(error)
    }
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n') return done()
        if (char === '\u0003' || char === '\u0004') return done(commandFailed('Cancelado'))
        if (char === '\u007f' || char === '\b') typed = typed.slice(0, -1)
        else typed += char
      }
    }
    stdin.on('data', onData)
  })
}

/** The new password: --password-stdin, or a prompt on a terminal; never an argument. */
export async function readNewPassword(input: CommandInput): Promise<string> {
  if (input.values['password-stdin'] === true) {
    const line = (await readAll(input.stdin)).split(/\r?\n/)[0] ?? ''
    if (line === '') throw commandFailed('--password-stdin: la entrada estándar no trae ninguna contraseña')
    return line
  }
  if (input.stdin.isTTY !== true) throw commandFailed('No hay terminal para preguntar la contraseña: use --password-stdin')
  const first = await promptHidden(input, 'Contraseña: ')
  const second = await promptHidden(input, 'Repita la contraseña: ')
  if (first !== second) throw commandFailed('Las contraseñas no coinciden')
  return first
}

export const PASSWORD_OPTIONS = { 'password-stdin': { type: 'boolean' } } as const
