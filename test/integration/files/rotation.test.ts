// D43 with D14: a file's own key is wrapped by the service's field key; a rotation wraps it again
// under the new key, `records keys` counts it, and the new key alone still opens the file.
import { createHash, randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { keyIdOf } from '../../../src/db/crypto.js'
import { rotateEncryption } from '../../../src/db/keys/rotation.js'
import { keyUsage } from '../../../src/db/keys/usage.js'
import { startTestApi, VALID, type TestApi } from '../../helpers/api.js'
import { newKey } from '../protection/support.js'

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')

const fetchFile = async (api: TestApi, id: string) =>
  api.service.app.inject({
    method: 'GET',
    url: `${api.base}/denuncias/${id}/ficheros/pruebas/1`,
    headers: { authorization: `Bearer ${await api.adminToken()}` },
  })

t.test('D43, D14: a rotation wraps file keys again; the new key alone opens the file', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'records-files-rotation-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const [oldKey, newOne] = [newKey(), newKey()]
  const [oldId, newId] = [keyIdOf(Buffer.from(oldKey, 'base64')), keyIdOf(Buffer.from(newOne, 'base64'))]
  const bytes = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(5000)])

  const first = await startTestApi(t, { dataDir, env: { RECORDS_ENCRYPTION_KEY: oldKey } })
  const { _id: id } = await first.create('denuncias', VALID['denuncias']!())
  const up = await first.service.app.inject({
    method: 'POST',
    url: `${first.base}/denuncias/${id}/ficheros/pruebas`,
    headers: {
      authorization: `Bearer ${await first.adminToken()}`,
      'content-type': 'application/pdf',
      'x-nombre': 'a.pdf',
    },
    payload: bytes,
  })
  t.equal(up.statusCode, 201)
  const before = (await keyUsage(first.service.database, first.service.spec)).get(oldId) ?? 0
  await first.service.close()

  const second = await startTestApi(t, {
    dataDir,
    env: { RECORDS_ENCRYPTION_KEY: newOne, RECORDS_ENCRYPTION_OLD_KEYS: oldKey },
  })
  const { service } = second
  await rotateEncryption({
    database: service.database,
    spec: service.spec,
    codec: service.codec,
    recordKeys: service.recordKeys,
    factors: service.factors,
    files: service.files,
    changes: service.changes,
    activeKeyId: service.keys.targetId,
    timezone: service.spec.service.timezone,
    clock: () => new Date(),
  })
  const usage = await keyUsage(service.database, service.spec)
  t.equal(usage.get(oldId), undefined, 'nothing left under the old key')
  t.ok((usage.get(newId) ?? 0) >= before, 'the file key is counted under the new one')
  await service.close()

  const only = await startTestApi(t, { dataDir, env: { RECORDS_ENCRYPTION_KEY: newOne } })
  const down = await fetchFile(only, String(id))
  t.equal(down.statusCode, 200)
  t.equal(sha(down.rawPayload), sha(bytes))
})
