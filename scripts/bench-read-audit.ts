// What auditing reads of decrypted data costs: GET one record by id through the
// real app, revealing (audited) vs. masked (not audited), on a temp SQLite database.
// Run: npm run bench:read-audit   (figures vary with the machine; compare within one run)
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { openService } from '../src/app/service.js'
import { loadSettings } from '../src/app/settings.js'

const ROUNDS = 3
const READS = 3000
const dataDir = mkdtempSync(join(tmpdir(), 'records-bench-'))
const settings = loadSettings({
  DATA_DIR: dataDir,
  ADMIN_PASSWORD: 'bench-password-1',
  MODULES_FILE: join(process.cwd(), 'modules.yaml'),
  RATE_LIMIT_IP_PER_MINUTE: '100000000',
  RATE_LIMIT_TOKEN_PER_HOUR: '100000000',
})
const service = await openService(settings)
const spec = service.spec.moduleByName.get('denuncias')
if (spec === undefined) throw new Error('modules.yaml has no denuncias module')
const ids: string[] = []
for (let i = 0; i < 500; i++) {
  const r = await service.store.create(
    spec,
    {
      denunciante_nombre: `Persona ${i}`,
      denunciante_dni: `${10000000 + i}X`,
      denunciante_telefono: '600000000',
      denunciante_domicilio: `Calle ${i}`,
      tipo: 'hurto',
      fecha_hechos: '2026-11-20 10:00:00',
      lugar_hechos: 'Plaza',
      descripcion: 'x',
    },
    { actor: 'bench', reveal: false, user: null },
  )
  ids.push(String(r['_id']))
}
const inject = (token: string, id: string) =>
  service.app.inject({ method: 'GET', url: `/api/denuncias/${id}`, headers: { authorization: `Bearer ${token}` } })
const login = async (username: string, password: string) =>
  (await service.app.inject({ method: 'POST', url: '/api/auth/login', payload: { username, password } })).json().data
    .token as string
const admin = await login('admin', 'bench-password-1')
await service.app.inject({
  method: 'POST',
  url: '/api/usuarios',
  headers: { authorization: `Bearer ${admin}` },
  payload: { username: 'lector', password: 'lector-password', nombre: 'Lector', rol: 'consulta' },
})
const reader = await login('lector', 'lector-password')

async function measure(token: string): Promise<number> {
  for (let i = 0; i < 300; i++) await inject(token, ids[i % ids.length] as string) // warm-up
  const start = performance.now()
  for (let i = 0; i < READS; i++) await inject(token, ids[i % ids.length] as string)
  return ((performance.now() - start) * 1000) / READS
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number
const audited: number[] = []
const masked: number[] = []
for (let round = 0; round < ROUNDS; round++) {
  audited.push(await measure(admin))
  masked.push(await measure(reader))
}
await service.close()
rmSync(dataDir, { recursive: true, force: true })
console.log(`GET /denuncias/:id, ${READS} sequential reads x ${ROUNDS} rounds (median):`)
console.log(`  revealing 3 encrypted fields, read audited: ${median(audited).toFixed(0)} µs/read`)
console.log(`  masked (consulta), nothing decrypted or audited: ${median(masked).toFixed(0)} µs/read`)
console.log(`  difference (decryption + audit buffering): ${(median(audited) - median(masked)).toFixed(0)} µs/read`)
