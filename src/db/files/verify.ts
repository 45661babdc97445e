// D43: fixity. Every stored file decrypted (each segment's tag checked) and re-hashed against the
// SHA-256 and size of its upload; each check a `fichero_verificacion` custody entry.
import { createHash } from 'node:crypto'
import type { Row } from '../database.js'
import type { FileContext } from './context.js'
import { openedSegments } from './segments.js'
import { FILE_TABLES } from './tables.js'
import type { FileVerification } from './types.js'

async function checkOne(context: FileContext, row: Row): Promise<FileVerification> {
  const where = {
    module: String(row['module']),
    recordId: String(row['record_id']),
    field: String(row['field']),
    n: Number(row['n']),
  }
  const expected = context.storedOf(row)
  let problem: string | undefined
  try {
    const hash = createHash('sha256')
    let size = 0
    const sealed = context.blobs.read(context.placeOf(row), String(row['blob']))
    for await (const bytes of openedSegments(context.keyOf(row), sealed)) {
      hash.update(bytes)
      size += bytes.length
    }
    const sha256 = hash.digest('hex')
    if (sha256 !== expected.sha256) problem = `SHA-256 ${sha256}, se esperaba ${expected.sha256}`
    else if (size !== expected.size) problem = `${size} bytes, se esperaban ${expected.size}`
  } catch (error) {
    problem = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error)
  }
  return problem === undefined ? { ...where, ok: true } : { ...where, ok: false, problem }
}

async function stillStored(context: FileContext, row: Row): Promise<boolean> {
  const found = await context.options.database.db
    .selectFrom(FILE_TABLES.files)
    .select('n')
    .where('module', '=', row['module'] as string)
    .where('record_id', '=', row['record_id'] as string)
    .where('field', '=', row['field'] as string)
    .where('n', '=', row['n'] as number)
    .executeTakeFirst()
  return found !== undefined
}

/** Checks every stored file in order, recording each check in `actor`'s name (null: the service). */
export async function verifyFiles(
  context: FileContext,
  actor: string | null,
  onFile?: (result: FileVerification) => void,
): Promise<FileVerification[]> {
  const rows = await context.options.database.db
    .selectFrom(FILE_TABLES.files)
    .selectAll()
    .orderBy('module')
    .orderBy('record_id')
    .orderBy('field')
    .orderBy('n')
    .execute()
  const results: FileVerification[] = []
  for (const row of rows as Row[]) {
    const result = await checkOne(context, row)
    // A file erased with its record (D41) since the list was read is no alteration: skip it.
    if (!result.ok && !(await stillStored(context, row))) continue
    await context.appendCustody([
      {
        userId: actor,
        action: 'fichero_verificacion',
        module: result.module,
        recordId: result.recordId,
        version: null,
        recordHash: null,
        fields: [result.field],
        criteria: {
          campo: result.field,
          n: result.n,
          sha256: String(row['sha256']),
          veredicto: result.ok ? 'correcto' : 'alterado',
        },
      },
    ])
    results.push(result)
    onFile?.(result)
  }
  return results
}
