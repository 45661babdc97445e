// Which roles of a module see only part of its records, for the operations' descriptions.
// The per-field notes live in the schemas themselves (compile/access-notes.ts).
import type { ModuleSpec, ScopeSpec } from '../compile/types.js'

function scopeText(scope: ScopeSpec): string {
  if (scope.kind !== 'match') return `(${scope.of.map(scopeText).join(scope.kind === 'any' ? ' o ' : ' y ')})`
  const value =
    'user' in scope.value
      ? `el ${scope.value.user === 'id' ? 'id' : scope.value.user} del usuario`
      : scope.value.literals.map(String).join(' | ')
  return `\`${scope.field}\` = ${value}`
}

/** One sentence per scoped role, or undefined when every role sees the whole module. */
export function scopeNote(spec: ModuleSpec): string | undefined {
  const lines = [...spec.access.values()]
    .filter((a) => a.scope !== undefined)
    .map(
      (a) =>
        `- ${a.role}: ${scopeText(a.scope as ScopeSpec)}${a.writeScope === undefined ? '' : `; modifica solo si ${scopeText(a.writeScope)}`}`,
    )
  if (lines.length === 0) return undefined
  return `**Ámbito de registros por rol** (fuera de él: 404 \`Registro no encontrado\`, y fuera de listas y totales):\n${lines.join('\n')}`
}
