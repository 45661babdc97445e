// D41: `records retention acta <file>` verifies an acta de eliminación offline: no database, no
// DATA_DIR, only the file. Exit 0 when its signature holds over every byte of its content, 1
// when anything changed (one byte), when it was signed by another key than the one expected,
// or when the file is no acta. The acta here is signed as a run signs it (app/retention-run.ts:
// actaBody, then signDocument with the audit checkpoint key); run.test.ts verifies one a real
// run wrote.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { loadOrCreateKey, signDocument } from '../../../src/cli/audit-checkpoint.js'
import { compileService } from '../../../src/compile/service.js'
import { loadModulesConfig } from '../../../src/config/load.js'
import { actaBody } from '../../../src/records/retention-acta.js'
import { REPO_MODULES } from '../../helpers/api.js'
import { runRecords } from '../../helpers/records-cli.js'

const dir = mkdtempSync(join(tmpdir(), 'records-acta-'))
t.teardown(() => rmSync(dir, { recursive: true, force: true }))
// A DATA_DIR that does not exist and a database nobody can reach: the verification needs neither.
const OFFLINE = { DATA_DIR: join(dir, 'no-existe'), DATABASE_URL: 'postgres://nadie@127.0.0.1:1/nada' }

const sanciones = compileService(loadModulesConfig(REPO_MODULES)).moduleByName.get('sanciones')!
const key = loadOrCreateKey(join(dir, 'audit-checkpoint.key'))
const acta = signDocument(
  actaBody({
    at: '2026-11-27 03:00:00.125',
    timezone: 'Europe/Madrid',
    actor: 'sistema',
    erased: [{ module: 'sanciones', retention: sanciones.retention!, ids: ['SAN-2019-00001', 'SAN-2019-00002'] }],
    destroyedKeys: [],
    head: { seq: 42, hash: 'a'.repeat(64), at: '2026-11-27 03:00:00.120', entradas: 42 },
  }),
  key,
)
const text = `${JSON.stringify(acta, null, 2)}\n`

function write(name: string, content: string): string {
  const file = join(dir, name)
  writeFileSync(file, content)
  return file
}

t.test('D41: a signed acta verifies offline (exit 0) and says what it proves', async (t) => {
  const file = write('acta.json', text)
  const run = await runRecords(OFFLINE, ['retention', 'acta', file])
  t.equal(run.status, 0, run.stderr)
  t.equal(
    run.stdout,
    [
      'Válida: acta de eliminación del 2026-11-27 03:00:00.125 (Europe/Madrid), sistema: 2 registros suprimidos.',
      `  sanciones: 2 (base: ${sanciones.retention!.basis})`,
      `Cabeza de la auditoría tras la ejecución: 42:${'a'.repeat(64)}`,
      `Firmada con la clave ${acta.huella}: compare esta huella con la que guarda aparte.`,
      '',
    ].join('\n'),
  )
  const json = await runRecords(OFFLINE, ['retention', 'acta', file, '--json', '--huella', acta.huella])
  t.equal(json.status, 0, json.stderr)
  t.same(JSON.parse(json.stdout), {
    ok: true,
    problem: null,
    huella: acta.huella,
    fecha: '2026-11-27 03:00:00.125',
    total: 2,
    modulos: [{ modulo: 'sanciones', suprimidos: 2 }],
    auditoria: { seq: 42, hash: 'a'.repeat(64), at: '2026-11-27 03:00:00.120', entradas: 42 },
  })
})

t.test('D41: one changed byte, another key or no acta at all: exit 1 saying why', async (t) => {
  // One id's last digit: the JSON is as valid as before, the signature no longer holds.
  const changed = write('cambiada.json', text.replace('SAN-2019-00002', 'SAN-2019-00003'))
  const [before, after] = [Buffer.from(text), readFileSync(changed)]
  t.equal(after.length, before.length)
  t.equal(before.filter((byte, i) => after[i] !== byte).length, 1, 'one byte differs')
  const run = await runRecords(OFFLINE, ['retention', 'acta', changed])
  t.equal(run.status, 1)
  t.equal(
    run.stdout,
    `NO VÁLIDA: ${changed}: la firma no corresponde al contenido: el acta se ha modificado o no la firmó esa clave.\n`,
  )
  const other = await runRecords(OFFLINE, ['retention', 'acta', write('otra.json', text), '--huella', 'SHA256:otra'])
  t.equal(other.status, 1, 'signed, but not with the key expected')
  t.match(other.stdout, `firmada con otra clave (${acta.huella}), no con la esperada (SHA256:otra)`)
  const notJson = await runRecords(OFFLINE, ['retention', 'acta', write('rota.json', text.slice(0, 40))])
  t.equal(notJson.status, 1)
  t.match(notJson.stderr, 'no es un acta de eliminación: no es JSON')
  const checkpoint = write(
    'punto.json',
    JSON.stringify({ ...acta, tipo: 'municipal-records/punto-de-control-auditoria' }),
  )
  const wrongKind = await runRecords(OFFLINE, ['retention', 'acta', checkpoint])
  t.equal(wrongKind.status, 1)
  t.match(wrongKind.stderr, 'no es un acta de eliminación (se espera "tipo": "municipal-records/acta-de-eliminacion")')
  t.notOk(existsSync(OFFLINE.DATA_DIR), 'no DATA_DIR was made: nothing of the installation was opened')
})

t.test(
  'D41: changes the signature alone would miss: spaces, and a repeated key read before the real one',
  async (t) => {
    const spaced = write('espacios.json', text.replace('"total": 2', '"total":  2'))
    const repeated = write('repetida.json', text.replace('{\n', '{\n  "total": 999,\n'))
    t.same(JSON.parse(readFileSync(repeated, 'utf8')).total, 2, 'JSON.parse keeps the last of a repeated key')
    for (const file of [spaced, repeated]) {
      const run = await runRecords(OFFLINE, ['retention', 'acta', file])
      t.equal(run.status, 1, file)
      t.match(run.stdout, 'el fichero no es el texto firmado')
    }
  },
)
