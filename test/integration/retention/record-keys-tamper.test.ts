// D41, D14: a data key's row that does not unwrap (its wrapped key altered, or the row relabelled
// to another record) costs that record's values, never the list: they read as unreadable (null,
// `_integridad`), as a destroyed key's do, the others as usual; the service logs it at error level
// once, and `records audit verify` (verifyIntegrity) names the record and the key.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { RECORD_KEYS_TABLE, recordKeysFile } from '../../../src/db/keys/record-keys.js'
import { createSqliteDatabase } from '../../../src/db/dialects/sqlite.js'
import { verifyIntegrity } from '../../../src/db/operations/verify-integrity.js'
import { ON_POSTGRES, startTestApi, VALID } from '../../helpers/api.js'
import { captureLogs } from '../protection/support.js'

/** A wrapped key with one character of its GCM tag changed. */
function withAlteredTag(wrapped: string): string {
  const parts = wrapped.split('.')
  const tag = parts[3]!
  parts[3] = (tag[0] === 'A' ? 'B' : 'A') + tag.slice(1)
  return parts.join('.')
}

t.test('D41: a key row that does not unwrap makes its record unreadable, not the list a 500', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'records-record-keys-tamper-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const first = await startTestApi(t, { dataDir })
  const damaged = (await first.create('denuncias', { ...VALID['denuncias']!(), denunciante_dni: '12121212A' }))
    ._id as string
  const intact = (await first.create('denuncias', { ...VALID['denuncias']!(), denunciante_dni: '34343434B' }))
    ._id as string
  const spec = first.service.spec.moduleByName.get('denuncias')!
  const column = spec.fieldsByName.get('denunciante_dni')!.column
  const stored = await first.service.database.db
    .selectFrom('denuncias')
    .select(column)
    .where('_id', '=', damaged)
    .executeTakeFirstOrThrow()
  const keyId = String(stored[column]).split('.')[1]!
  await first.service.close()

  // The key row altered in place, with the service stopped.
  const own = ON_POSTGRES ? undefined : createSqliteDatabase({ file: recordKeysFile(first.service.database.location) })
  const keysDb = own?.db ?? (await startTestApi(t, { dataDir })).service.database.db
  const row = await keysDb
    .selectFrom(RECORD_KEYS_TABLE)
    .select('wrapped')
    .where('key_id', '=', keyId)
    .executeTakeFirstOrThrow()
  await keysDb
    .updateTable(RECORD_KEYS_TABLE)
    .set({ wrapped: withAlteredTag(String(row['wrapped'])) })
    .where('key_id', '=', keyId)
    .execute()
  await own?.close()

  const logs = captureLogs()
  const api = await startTestApi(t, { dataDir, logger: { level: 'error', stream: logs.stream } })
  const token = await api.adminToken()
  for (let i = 0; i < 2; i++) {
    const list = await api.request('GET', '/denuncias?limit=100', { token })
    t.equal(list.status, 200, 'the list answers')
    const records = list.body.data.records as Record<string, unknown>[]
    t.match(
      records.find((r) => r['_id'] === damaged),
      {
        denunciante_dni: null,
        _integridad: 'error',
        _integridad_campos: ['denunciante_dni'],
      },
    )
    t.match(
      records.find((r) => r['_id'] === intact),
      { denunciante_dni: '34343434B' },
    )
  }
  t.match(await api.request('GET', `/denuncias/${damaged}`, { token }), {
    status: 200,
    body: { data: { denunciante_dni: null, _integridad: 'error' } },
  })
  const entries = logs
    .text()
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
  const keyErrors = entries.filter((e) => e['key'] === keyId)
  t.equal(keyErrors.length, 1, 'logged once')
  t.match(keyErrors[0], { level: 50, record: `denuncias:${damaged}`, msg: /clave de datos/ })
  t.notOk(logs.text().includes('12121212A'))

  const report = await verifyIntegrity(api.service.database, api.service.spec, api.service.codec, 1, {
    keyIds: new Set(api.service.keyring.keys.keys()),
    decrypt: true,
  })
  const named = report.problems.filter((p) => p.recordId === damaged)
  t.match(named, [{ kind: 'record_key', field: 'denunciante_dni', message: new RegExp(keyId) }], 'verify names it')
  t.same(report.destroyedKeys, [], 'not taken for an erasure')
  t.notOk(
    report.problems.some((p) => p.recordId === intact),
    'the other records verify',
  )
})
