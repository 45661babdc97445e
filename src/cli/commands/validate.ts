// `records validate [file]`: modules.yaml loaded and checked exactly as the server does.
import { resolve } from 'node:path'
import { unreachableModules } from '../../compile/reach.js'
import { unguardedAccountRoles } from '../../compile/second-factor-notes.js'
import { retentionWarnings } from '../../compile/retention.js'
import { compileService } from '../../compile/service.js'
import { loadModulesConfig } from '../../config/load.js'
import { formatConfigProblem, isOperatorError } from '../../errors.js'
import { JSON_OPTION, flag, type Command } from '../command.js'
import { printJson, printLines } from '../output.js'
import { countOf } from '../plural.js'

const validate: Command = {
  name: 'validate',
  summary: 'Comprueba modules.yaml como lo haría el servidor al arrancar',
  help: `
Uso: records validate [fichero] [--json]

Carga y comprueba una definición de módulos (por defecto MODULES_FILE o ./modules.yaml)
exactamente como el servidor al arrancar: sintaxis YAML, forma (schema/modules.schema.json)
y reglas entre módulos. Muestra cada problema como fichero:línea:columna: frase.

Avisa también, sin que sea un error, de los módulos que solo alcanza un rol con '*.*': un
módulo nuevo no lo usa un rol que enumera los módulos uno a uno (como administrador) hasta
que se le añade; y de los roles que gestionan cuentas sin 'segundo_factor: obligatorio' (D42).

  --json   {"valid": bool, "file", "modules", "problems": [{file, line, column, message}],
            "warnings": [{module, message} | {role, message}]}

Salida: 0 si es válida (aunque haya avisos), 1 si tiene algún problema.`,
  options: JSON_OPTION,
  positionals: { min: 0, max: 1 },
  async run(input) {
    const file = resolve(input.cwd, input.positionals[0] ?? (input.env['MODULES_FILE'] || './modules.yaml'))
    try {
      const spec = compileService(loadModulesConfig(file))
      const modules = spec.modules.map((m) => m.name)
      const warnings = [...unreachableModules(spec), ...unguardedAccountRoles(spec), ...retentionWarnings(spec)]
      if (flag(input, 'json')) printJson(input, { valid: true, file, modules, problems: [], warnings })
      else
        printLines(input, [
          ...warnings.map((w) => `${file}: aviso: ${w.message}`),
          `${file}: válido (${countOf(modules.length, 'módulos')}, ${countOf(spec.roles.size, 'roles')}` +
            `${warnings.length > 0 ? `, ${countOf(warnings.length, 'avisos')}` : ''})`,
        ])
      return 0
    } catch (error) {
      if (!isOperatorError(error) || error.code !== 'CONFIG_INVALID') throw error
      const problems = error.problems
      if (flag(input, 'json')) printJson(input, { valid: false, file, modules: [], problems, warnings: [] })
      else
        printLines(input, [
          ...error.problems.map(formatConfigProblem),
          `${error.problems.length} problema${error.problems.length === 1 ? '' : 's'} en ${file}`,
        ])
      return 1
    }
  },
}

export const commands = [validate]
