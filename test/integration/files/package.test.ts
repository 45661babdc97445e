// D43: the court package of a record's evidence files, on both databases. `records package`
// writes the originals, the manifest, the record's audit entries and a signed seal, and an export
// entry in each file's custody; `records package verify` checks the zip with no database and
// names every difference: a byte of a file, the manifest, an audit entry, the signature, its key.
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import yauzl from 'yauzl'
import { ZipFile } from 'yazl'
import { ADMIN, databaseEnv, startTestApi, VALID, type TestApi } from '../../helpers/api.js'
import { runRecords, spawnRecords } from '../../helpers/records-cli.js'
import { modulesWithCustodian } from '../retention/support.js'
import { fingerprintOf, signDocument } from '../../../src/cli/audit-checkpoint.js'
import type { CommandInput } from '../../../src/cli/command.js'
import { packageVerify } from '../../../src/cli/commands/package-verify.js'

const sha = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex')
// A marker in the PDF's bytes: the test finds the file inside the zip by it.
const MARK = 'ESTA-ES-LA-PRUEBA-UNO'
const pdf = Buffer.concat([Buffer.from(`%PDF-1.7\n${MARK}\n`), randomBytes(600_000)])
const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(300)])
const DISCLOSURE = ['--destinatario', 'Juzgado de Instrucción n.º 2', '--motivo', 'Diligencias previas 123/2026']

async function upload(api: TestApi, id: string, token: string, body: Buffer, type: string, name: string) {
  const reply = await api.service.app.inject({
    method: 'POST',
    url: `${api.base}/denuncias/${id}/ficheros/pruebas`,
    headers: { authorization: `Bearer ${token}`, 'content-type': type, 'x-nombre': name },
    payload: body,
  })
  return reply.statusCode
}

/** Every entry of a (small) zip, in order. */
async function unzip(file: string): Promise<[string, Buffer][]> {
  const zip = await yauzl.openPromise(file, { lazyEntries: true, autoClose: false })
  const entries: yauzl.Entry[] = []
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (e: yauzl.Entry) => (entries.push(e), zip.readEntry()))
    zip.on('end', resolve)
    zip.on('error', reject)
    zip.readEntry()
  })
  const out: [string, Buffer][] = []
  for (const entry of entries) {
    const chunks: Buffer[] = []
    for await (const chunk of await zip.openReadStreamPromise(entry)) chunks.push(chunk as Buffer)
    out.push([entry.fileName, Buffer.concat(chunks)])
  }
  zip.close()
  return out
}

/** A copy of the zip `from` with its entries changed by `edit` (undefined: left out). */
async function rezip(
  from: string,
  to: string,
  edit: (entries: [string, Buffer][]) => [string, Buffer][] | Promise<[string, Buffer][]>,
  compressed?: string,
) {
  const entries = await edit(await unzip(from))
  const zip = new ZipFile()
  for (const [name, bytes] of entries) zip.addBuffer(bytes, name, { compress: name === compressed })
  zip.end()
  const chunks: Buffer[] = []
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer)
  writeFileSync(to, Buffer.concat(chunks))
}

/**
 * `records package verify` run in this process, as main.ts runs it (no database, no settings):
 * the spawned command is run too, for the intact package and the changed byte.
 */
async function verifyHere(file: string, options: { huella?: string; json?: boolean } = {}) {
  let stdout = ''
  const sink = { write: (chunk: string) => ((stdout += chunk), true) } as unknown as NodeJS.WriteStream
  const input: CommandInput = {
    values: { ...(options.huella === undefined ? {} : { huella: options.huella }), json: options.json === true },
    positionals: [file],
    env: {},
    cwd: '/',
    stdin: process.stdin,
    stdout: sink,
    stderr: sink,
  }
  const status = await packageVerify.run(input)
  return { status, stdout }
}

const json = (bytes: Buffer) => JSON.parse(bytes.toString('utf8'))
const text = (value: unknown) => Buffer.from(`${JSON.stringify(value, null, 2)}\n`)

t.test('D43: records package and records package verify', async (t) => {
  const modulesFile = modulesWithCustodian(t)
  const api = await startTestApi(t, { env: { MODULES_FILE: modulesFile } })
  const admin = await api.adminToken()
  const env = {
    DATA_DIR: api.dataDir,
    MODULES_FILE: modulesFile,
    ADMIN_USERNAME: ADMIN.username,
    ADMIN_PASSWORD: ADMIN.password,
    ...(await databaseEnv(api.dataDir)),
  }
  const records = (args: readonly string[]) => runRecords(env, args)
  const id = String((await api.create('denuncias', VALID['denuncias']!()))._id)
  t.equal(await upload(api, id, admin, pdf, 'application/pdf', 'Acta de inspección.pdf'), 201)
  t.equal(await upload(api, id, admin, png, 'image/png', '..foto:1.png'), 201)
  const zipFile = join(api.dataDir, 'paquete.zip')
  const bad = (name: string) => join(api.dataDir, name)

  // A list that returns the record: its consultation entry names it only in record_ids.
  t.equal((await api.request('GET', '/denuncias?limit=50', { token: admin })).status, 200)
  const listed = async () =>
    (await api.service.database.db.selectFrom('_audit').select(['record_id', 'record_ids']).execute()).some(
      (e: any) =>
        e.record_id === null &&
        ((typeof e.record_ids === 'string' ? JSON.parse(e.record_ids) : e.record_ids) ?? []).includes(id),
    )
  // Read entries may be written a moment after the answer: wait for it (the package must find it).
  for (let i = 0; i < 200 && !(await listed()); i++) await new Promise((r) => setTimeout(r, 50))

  // The package only loads its key: a missing one (a wrong path) is refused, never made anew.
  const noKey = await records(['package', 'denuncias', id, '--out', zipFile, ...DISCLOSURE])
  t.equal(noKey.status, 1)
  t.match(noKey.stderr, /No existe la clave de firma .*audit-checkpoint\.key: no se crea una nueva/)
  t.notOk(existsSync(join(api.dataDir, 'audit-checkpoint.key')), 'no key created')
  t.notOk(existsSync(zipFile), 'no package written')
  const wrongKey = await records([
    'package',
    'denuncias',
    id,
    '--out',
    zipFile,
    ...DISCLOSURE,
    '--key',
    bad('otra.key'),
  ])
  t.equal(wrongKey.status, 1)
  t.notOk(existsSync(bad('otra.key')))
  const checkpoint = await records(['audit', 'checkpoint', '--out', bad('punto.json')])
  t.equal(checkpoint.status, 0, checkpoint.stderr)

  const packed = await records(['package', 'denuncias', id, '--out', zipFile, ...DISCLOSURE, '--json'])
  t.equal(packed.status, 0, packed.stderr)
  const summary = JSON.parse(packed.stdout)
  const pdfPath = 'ficheros/pruebas/1-Acta de inspección.pdf'
  const pngPath = 'ficheros/pruebas/2-_foto_1.png'

  await t.test('the zip holds the originals as uploaded, the manifest, the audit entries and the seal', async (t) => {
    const entries = new Map(await unzip(zipFile))
    t.same(
      [...entries.keys()],
      [pdfPath, pngPath, 'manifest.json', 'auditoria.json', 'punto-de-control.json', 'firma.json'],
    )
    t.equal(sha(entries.get(pdfPath)!), sha(pdf), 'the PDF decrypted, byte for byte')
    t.equal(sha(entries.get(pngPath)!), sha(png))
    const record = (await api.request('GET', `/denuncias/${id}`, { token: admin })).body.data
    const manifest = json(entries.get('manifest.json')!)
    t.match(manifest, {
      modulo: 'denuncias',
      id,
      registro: { version: record._version, _hash: record._hash, bloqueado: false },
      destinatario: 'Juzgado de Instrucción n.º 2',
      motivo: 'Diligencias previas 123/2026',
    })
    t.same(
      manifest.ficheros.map((f: any) => [f.campo, f.n, f.sha256, f.size, f.type, f.name, f.ruta]),
      [
        ['pruebas', 1, sha(pdf), pdf.length, 'application/pdf', 'Acta de inspección.pdf', pdfPath],
        ['pruebas', 2, sha(png), png.length, 'image/png', '..foto:1.png', pngPath],
      ],
    )
    t.same(
      manifest.ficheros[0].custodia.map((c: any) => c.action),
      ['fichero_ingreso', 'fichero_exportacion'],
      "the package's own export entry is in it",
    )
    const audit = json(entries.get('auditoria.json')!)
    t.ok(audit.entradas.some((e: any) => e.action === 'crear'))
    t.ok(
      audit.entradas.some((e: any) => e.record_id === null && (e.record_ids ?? []).includes(id)),
      'the list read that returned it, as the audit query selects it',
    )
    t.equal(audit.entradas.filter((e: any) => e.action === 'fichero_exportacion').length, 2)
    const seal = json(entries.get('firma.json')!)
    t.equal(seal.contenido['manifest.json'], sha(entries.get('manifest.json')!))
    t.equal(summary.huella, seal.huella)
    t.equal(summary.huella, json(readFileSync(bad('punto.json'))).huella, 'signed with the audit checkpoint key')
  })

  await t.test('verify: intact, with and without the expected fingerprint; the wrong one is refused', async (t) => {
    const ok = await spawnRecords(env, ['package', 'verify', zipFile])
    t.equal(ok.status, 0, ok.stdout + ok.stderr)
    t.match(ok.stdout, /^Válido: paquete de denuncias\//)
    t.equal((await verifyHere(zipFile, { huella: summary.huella })).status, 0)
    const other = fingerprintOf(generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'der' }))
    const wrong = await verifyHere(zipFile, { huella: other, json: true })
    t.equal(wrong.status, 1)
    t.match(JSON.parse(wrong.stdout).problems, [/firmado con otra clave/])
  })

  await t.test('custody shows the export, and the audit chain still verifies', async (t) => {
    const custody = await api.request('GET', `/denuncias/${id}/ficheros/pruebas/2/custodia`, { token: admin })
    t.equal(custody.status, 200)
    const exported = custody.body.data.entries.filter((e: any) => e.action === 'fichero_exportacion')
    t.equal(exported.length, 1)
    t.equal(exported[0].sha256, sha(png))
    const verify = await records(['audit', 'verify'])
    t.equal(verify.status, 0, verify.stdout + verify.stderr)
  })

  await t.test('one byte of an original changed inside the zip: exit 1 naming it', async (t) => {
    const bytes = readFileSync(zipFile)
    const at = bytes.indexOf(MARK)
    t.ok(at > 0, 'the PDF is stored as is')
    bytes[at] = bytes[at]! ^ 0x01
    writeFileSync(bad('byte.zip'), bytes)
    const run = await spawnRecords(env, ['package', 'verify', bad('byte.zip')])
    t.equal(run.status, 1)
    t.match(run.stdout, `${pdfPath}: su SHA-256 es`)
    t.notMatch(run.stdout, pngPath, 'only the file that differs')
  })

  await t.test('the manifest, an audit entry, a missing or an extra file: each named', async (t) => {
    await rezip(zipFile, bad('manifest.zip'), (entries) =>
      entries.map(([name, bytes]) => {
        if (name !== 'manifest.json') return [name, bytes]
        const manifest = json(bytes)
        manifest.ficheros[0].sha256 = sha('otra cosa')
        return [name, text(manifest)]
      }),
    )
    const manifest = await verifyHere(bad('manifest.zip'))
    t.equal(manifest.status, 1)
    t.match(manifest.stdout, /manifest\.json ha cambiado después de la firma/)

    await rezip(zipFile, bad('audit.zip'), (entries) =>
      entries.map(([name, bytes]) => {
        if (name !== 'auditoria.json') return [name, bytes]
        const audit = json(bytes)
        audit.entradas[0].user_id = 'otra-persona'
        return [name, text(audit)]
      }),
    )
    const audit = await verifyHere(bad('audit.zip'), { json: true })
    t.equal(audit.status, 1)
    const problems: string[] = JSON.parse(audit.stdout).problems
    t.ok(problems.some((p) => /auditoria\.json ha cambiado después de la firma/.test(p)))
    t.ok(
      problems.some((p) => /la entrada \d+ \(crear\) no corresponde a su hash/.test(p)),
      problems.join('\n'),
    )

    await rezip(zipFile, bad('missing.zip'), (entries) => [
      ...entries.filter(([name]) => name !== pngPath),
      ['ficheros/pruebas/3-nuevo.pdf', pdf],
    ])
    const missing = await verifyHere(bad('missing.zip'))
    t.equal(missing.status, 1)
    t.match(missing.stdout, `falta ${pngPath}`)
    t.match(missing.stdout, 'sobra ficheros/pruebas/3-nuevo.pdf')
  })

  await t.test('verify reads the file, not only its index: spliced, renamed, commented, compressed', async (t) => {
    const intact = readFileSync(zipFile)
    const eocd = intact.length - 22
    t.equal(intact.readUInt32LE(eocd), 0x06054b50, 'no comment, no ZIP64')
    const central = intact.readUInt32LE(eocd + 16)
    // A local entry spliced in before the index, which does not list it: unzip tools never show it.
    const name = Buffer.from('ficheros/pruebas/9-oculto.pdf')
    const data = Buffer.from('%PDF-1.7 oculto')
    const header = Buffer.alloc(30)
    header.writeUInt32LE(0x04034b50, 0)
    header.writeUInt16LE(20, 4)
    header.writeUInt32LE(data.length, 18)
    header.writeUInt32LE(data.length, 22)
    header.writeUInt16LE(name.length, 26)
    const spliced = Buffer.concat([intact.subarray(0, central), header, name, data, intact.subarray(central)])
    const inserted = header.length + name.length + data.length
    spliced.writeUInt32LE(central + inserted, spliced.length - 22 + 16)
    writeFileSync(bad('spliced.zip'), spliced)
    const splicedRun = await verifyHere(bad('spliced.zip'))
    t.equal(splicedRun.status, 1)
    t.match(
      splicedRun.stdout,
      `hay ${inserted} bytes antes del índice del zip que no son de ninguna entrada del índice`,
    )

    // The local header of the PNG names another file; its index record still names the PNG.
    const renamed = Buffer.from(intact)
    const at = renamed.indexOf(pngPath)
    t.ok(at > 0 && at < central, 'the local header comes first')
    renamed.write('9', at + pngPath.length - '.png'.length - 1)
    writeFileSync(bad('renamed.zip'), renamed)
    const renamedRun = await verifyHere(bad('renamed.zip'))
    t.equal(renamedRun.status, 1)
    t.match(renamedRun.stdout, `la cabecera local de ${pngPath} nombra otro fichero`)

    const comment = Buffer.from('nota añadida')
    const commented = Buffer.concat([intact, comment])
    commented.writeUInt16LE(comment.length, eocd + 20)
    writeFileSync(bad('commented.zip'), commented)
    const commentedRun = await verifyHere(bad('commented.zip'))
    t.equal(commentedRun.status, 1)
    t.match(commentedRun.stdout, 'el zip lleva un comentario')

    await rezip(zipFile, bad('compressed.zip'), (entries) => entries, pdfPath)
    const compressedRun = await verifyHere(bad('compressed.zip'))
    t.equal(compressedRun.status, 1)
    t.match(compressedRun.stdout, `${pdfPath}: está comprimido`)
  })

  await t.test("verify refuses to read a package's own file over 16 MiB", async (t) => {
    await rezip(zipFile, bad('large.zip'), (entries) =>
      entries.map(([name, bytes]) => [name, name === 'auditoria.json' ? Buffer.alloc(17 * 1024 * 1024, 0x20) : bytes]),
    )
    const run = await verifyHere(bad('large.zip'))
    t.equal(run.status, 1)
    t.match(run.stdout, `auditoria.json ocupa ${17 * 1024 * 1024} bytes, más de los ${16 * 1024 * 1024} de un paquete`)
  })

  await t.test('a seal tampered with, or signed again with another key', async (t) => {
    await rezip(zipFile, bad('signature.zip'), (entries) =>
      entries.map(([name, bytes]) => {
        if (name !== 'firma.json') return [name, bytes]
        const seal = json(bytes)
        seal.firmado = '2020-01-01 00:00:00.000'
        return [name, text(seal)]
      }),
    )
    const broken = await verifyHere(bad('signature.zip'))
    t.equal(broken.status, 1)
    t.match(broken.stdout, /firma\.json: la firma no corresponde a su contenido/)

    // A forger changes the manifest and signs it all again with a key of their own.
    const { privateKey, publicKey } = generateKeyPairSync('ed25519')
    const forgerKey = {
      privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      publicDer: publicKey.export({ type: 'spki', format: 'der' }),
      created: false,
    }
    await rezip(zipFile, bad('forged.zip'), (entries) => {
      const manifest = json(entries.find(([n]) => n === 'manifest.json')![1])
      manifest.destinatario = 'Otro destinatario'
      const manifestText = text(manifest)
      const seal = json(entries.find(([n]) => n === 'firma.json')![1])
      const { clave_publica: _c, huella: _h, firma: _f, ...body } = seal
      const forged = signDocument(
        { ...body, contenido: { ...body.contenido, 'manifest.json': sha(manifestText) } },
        forgerKey,
      )
      return entries.map(([name, bytes]) =>
        name === 'manifest.json' ? [name, manifestText] : name === 'firma.json' ? [name, text(forged)] : [name, bytes],
      )
    })
    const forged = await verifyHere(bad('forged.zip'), { huella: summary.huella })
    t.equal(forged.status, 1)
    t.match(forged.stdout, /firmado con otra clave/)
    t.match(forged.stdout, /punto-de-control\.json: firmado con otra clave/)
  })

  await t.test('refusals: each clear, nothing written', async (t) => {
    const out = bad('nuevo.zip')
    const unknownModule = await records(['package', 'no_existe', id, '--out', out, ...DISCLOSURE])
    t.equal(unknownModule.status, 1)
    t.match(unknownModule.stderr, /Módulo desconocido 'no_existe'/)
    const unknownRecord = await records(['package', 'denuncias', 'DEN-1999-99999', '--out', out, ...DISCLOSURE])
    t.equal(unknownRecord.status, 1)
    t.match(unknownRecord.stderr, /No existe el registro 'DEN-1999-99999' en denuncias/)
    const before = readFileSync(zipFile)
    const existing = await records(['package', 'denuncias', id, '--out', zipFile, ...DISCLOSURE])
    t.equal(existing.status, 1)
    t.match(existing.stderr, /ya existe: no se sobrescribe/)
    t.same(readFileSync(zipFile), before, 'the existing file untouched')
    const noReason = await records(['package', 'denuncias', id, '--out', out])
    t.equal(noReason.status, 2)
    t.match(noReason.stderr, /--destinatario/)
    const empty = String((await api.create('denuncias', VALID['denuncias']!()))._id)
    const noFiles = await records(['package', 'denuncias', empty, '--out', out, ...DISCLOSURE])
    t.equal(noFiles.status, 1)
    t.match(noFiles.stderr, /no tiene ficheros de prueba/)
    t.notOk(existsSync(out), 'no package written')
    // A part file already there (another run's, or one killed) is named and left alone.
    const part = bad('.parte.zip.parte')
    writeFileSync(part, 'otra ejecución')
    const stale = await records(['package', 'denuncias', id, '--out', bad('parte.zip'), ...DISCLOSURE])
    t.equal(stale.status, 1)
    t.match(stale.stderr, `Ya existe ${part}: es de otro records package en curso o de uno interrumpido`)
    t.equal(readFileSync(part, 'utf8'), 'otra ejecución', 'not deleted')
    t.notOk(existsSync(bad('parte.zip')))
  })

  await t.test('a blocked record is packaged (a lawful use, D41); an erased one is refused', async (t) => {
    const dpd = await api.userWithRole('dpd')
    const decide = (decision: string) =>
      api.request('POST', `/retencion/denuncias/${id}`, {
        token: dpd.token,
        body: { decision, motivo: 'Requerimiento judicial' },
      })
    t.equal((await decide('bloquear')).status, 200)
    const blocked = await records(['package', 'denuncias', id, '--out', bad('bloqueado.zip'), ...DISCLOSURE])
    t.equal(blocked.status, 0, blocked.stderr)
    t.match(blocked.stdout, /bloqueado/)
    const entries = new Map(await unzip(bad('bloqueado.zip')))
    t.equal(json(entries.get('manifest.json')!).registro.bloqueado, true)
    t.equal((await verifyHere(bad('bloqueado.zip'))).status, 0)
    t.equal((await decide('suprimir')).status, 200)
    const erased = await records(['package', 'denuncias', id, '--out', bad('suprimido.zip'), ...DISCLOSURE])
    t.equal(erased.status, 1)
    t.match(erased.stderr, /se suprimió el .* \(D41\): sus ficheros ya no existen/)
    t.notOk(existsSync(bad('suprimido.zip')))
  })

  await t.test('the files table is not trusted: a row that differs from its upload entry is refused', async (t) => {
    const other = String((await api.create('denuncias', VALID['denuncias']!()))._id)
    t.equal(await upload(api, other, admin, pdf, 'application/pdf', 'a.pdf'), 201)
    t.equal(await upload(api, other, admin, png, 'image/png', 'b.png'), 201)
    // Someone with write access to the database swaps the two rows' files: each row's digest still
    // matches its bytes, but file 1 is no longer what the chain says was uploaded as file 1.
    const { db } = api.service.database
    const rows = await db.selectFrom('_files').selectAll().where('record_id', '=', other).orderBy('n').execute()
    const moved = (r: any) => ({
      sha256: r.sha256,
      size: r.size,
      type: r.type,
      name: r.name,
      blob: r.blob,
      file_key: r.file_key,
    })
    await db.updateTable('_files').set(moved(rows[1])).where('record_id', '=', other).where('n', '=', 1).execute()
    await db.updateTable('_files').set(moved(rows[0])).where('record_id', '=', other).where('n', '=', 2).execute()
    const out = bad('cambiado.zip')
    const run = await records(['package', 'denuncias', other, '--out', out, ...DISCLOSURE])
    t.equal(run.status, 1)
    t.match(run.stderr, /El fichero pruebas\/1 no es el de su subida según la auditoría/)
    t.notOk(existsSync(out), 'nothing written')
    const exported = await db
      .selectFrom('_audit')
      .select('seq')
      .where('record_id', '=', other)
      .where('action', '=', 'fichero_exportacion')
      .execute()
    t.equal(exported.length, 0, 'no export entry either')
  })

  await t.test('verify: a file whose custody lacks its upload or export with its digest is named', async (t) => {
    await rezip(zipFile, bad('custody.zip'), (entries) =>
      entries.map(([name, bytes]) => {
        if (name !== 'manifest.json') return [name, bytes]
        const manifest = json(bytes)
        manifest.ficheros[0].custodia = manifest.ficheros[0].custodia.filter((c: any) => c.action !== 'fichero_ingreso')
        manifest.ficheros[1].custodia = manifest.ficheros[1].custodia.map((c: any) =>
          c.action === 'fichero_exportacion' ? { ...c, sha256: sha('otra') } : c,
        )
        return [name, text(manifest)]
      }),
    )
    const run = await verifyHere(bad('custody.zip'))
    t.equal(run.status, 1)
    t.match(run.stdout, "la custodia de pruebas/1 no tiene una entrada 'fichero_ingreso' con su SHA-256")
    t.match(run.stdout, "la custodia de pruebas/2 no tiene una entrada 'fichero_exportacion' con su SHA-256")
  })

  await t.test('a break in the chain before an entry of the record: not signed', async (t) => {
    const broken = String((await api.create('denuncias', VALID['denuncias']!()))._id)
    t.equal(await upload(api, broken, admin, png, 'image/png', 'c.png'), 201)
    const { db } = api.service.database
    const ingest = await db
      .selectFrom('_audit')
      .select('seq')
      .where('record_id', '=', broken)
      .where('action', '=', 'fichero_ingreso')
      .executeTakeFirstOrThrow()
    const seq = Number(ingest.seq)
    // The entry before it rewritten with a hash of its own: the next one no longer follows it.
    await db
      .updateTable('_audit')
      .set({ hash: sha('otra entrada') })
      .where('seq', '=', seq - 1)
      .execute()
    const out = bad('cadena.zip')
    const run = await records(['package', 'denuncias', broken, '--out', out, ...DISCLOSURE])
    t.equal(run.status, 1)
    t.match(run.stderr, new RegExp(`La cadena de auditoría no se sostiene en las entradas [0-9, ]*\\b${seq}\\b`))
    t.notOk(existsSync(out), 'nothing written')
  })
})
