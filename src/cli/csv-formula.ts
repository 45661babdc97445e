// CSV injection (OWASP "CSV Injection"): a spreadsheet runs a cell that starts with `=`, `+`,
// `-`, `@`, a tab or a carriage return as a formula. `records export` writes such text cells
// with a leading `'`, which spreadsheets show as text; `records import` takes it off again, so
// an export re-imports unchanged. Text that already starts with `'` before one of those
// characters gets one more `'`: the pair of functions is exact both ways.

const NEUTRALISED = /^'*[=+\-@\t\r]/

/** The cell as written by export: text a spreadsheet would evaluate gets a leading `'`. */
export function neutraliseFormula(text: string): string {
  return NEUTRALISED.test(text) ? `'${text}` : text
}

/** The cell as read by import: the `'` that export added is removed. */
export function restoreFormula(text: string): string {
  return text.startsWith("'") && NEUTRALISED.test(text) ? text.slice(1) : text
}
