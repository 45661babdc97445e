// Shape checks shared by the documents the installation signs (the acta de eliminación, D41;
// the court package's seal, D43): a JSON object, and the audit chain's head they name.

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value)

/** Why a document's `auditoria` is not a head of the chain `{seq, hash, at, entradas}`, or undefined. */
export function auditHeadProblem(head: unknown): string | undefined {
  const headOk =
    isRecord(head) &&
    Number.isSafeInteger(head['seq']) &&
    Number.isSafeInteger(head['entradas']) &&
    typeof head['hash'] === 'string' &&
    typeof head['at'] === 'string'
  return headOk ? undefined : '"auditoria" no es una cabeza de la cadena {seq, hash, at, entradas}'
}
