// An encrypted field of a JSON type (mixed, array) keeps the value it was given, whatever its
// JSON kind: a plain string in a `mixed` field used to be encrypted as its bare text and then
// read back through JSON.parse, which failed (or turned "123" into 123).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { REPO_MODULES, startTestApi } from '../../helpers/api.js'

const NOTAS = `
  notas_cifradas:
    prefix: NCF
    fields:
      titulo: { type: string, required: true }
      contenido: { type: mixed, encrypted: true }
      etiquetas: { type: array, encrypted: true }
`

t.test('encrypted mixed and array fields read back exactly what was written', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'records-json-enc-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const modulesFile = join(dir, 'modules.yaml')
  writeFileSync(modulesFile, `${readFileSync(REPO_MODULES, 'utf8').trimEnd()}\n${NOTAS}`)
  const api = await startTestApi(t, { env: { MODULES_FILE: modulesFile }, dataDir: join(dir, 'data') })
  const token = await api.adminToken()
  const values: unknown[] = ['texto libre', '123', 'true', 'null', 42, false, { a: [1, 'b'] }, ['x', 2], '"comillas"']
  for (const contenido of values) {
    const created = await api.request('POST', '/notas_cifradas', {
      token,
      body: { titulo: 'n', contenido, etiquetas: [contenido] },
    })
    t.equal(created.status, 201, `created with ${JSON.stringify(contenido)}`)
    const read = await api.request('GET', `/notas_cifradas/${created.body.data._id}`, { token })
    t.equal(read.status, 200)
    t.same(read.body.data.contenido, contenido, `mixed ${JSON.stringify(contenido)} reads back as written`)
    t.equal(typeof read.body.data.contenido, typeof contenido, 'with its JSON kind')
    t.same(read.body.data.etiquetas, [contenido], 'array too')
  }
})
