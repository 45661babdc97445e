// D14: no plaintext of an encrypted field anywhere: not in any file under DATA_DIR (database,
// WAL, shared memory, secrets) before or after a clean close, nor in debug logs
// (no token, password or plaintext marker in the logs of a full CRUD run).
// On PostgreSQL: not in any row of any table, nor in debug logs.
import { rmSync } from 'node:fs'
import { basename } from 'node:path'
import t from 'tap'
import { ADMIN, ON_POSTGRES, startTestApi, VALID } from '../../helpers/api.js'
import {
  auditRows,
  captureLogs,
  encryptedModules,
  eventually,
  filesUnder,
  markerFor,
  markerForms,
  storedText,
} from './support.js'

t.test(
  'D14: markers in every encrypted field of every module appear in no file under DATA_DIR nor in debug logs',
  async (t) => {
    const logs = captureLogs()
    const api = await startTestApi(t, { keepDir: true, logger: { level: 'debug', stream: logs.stream } })
    t.teardown(() => rmSync(api.dataDir, { recursive: true, force: true }))
    const token = await api.adminToken()
    const markers: string[] = []
    const secrets: string[] = [ADMIN.password, token]
    const modules = encryptedModules(api)
    t.same(
      modules.map((m) => m.spec.name).sort(),
      ['denuncias', 'personal', 'sala092', 'sanciones'],
      'the modules that modules.yaml encrypts',
    )

    const fill = (fields: (typeof modules)[number]['fields']) => {
      const values: Record<string, string> = {}
      for (const field of fields) {
        values[field.name] = markerFor(field)
        markers.push(values[field.name] as string)
      }
      return values
    }

    for (const { spec, fields } of modules) {
      const body = VALID[spec.name]
      if (body === undefined) throw new Error(`no VALID body for ${spec.name}`)
      const ids: string[] = []
      for (let i = 0; i < 3; i++) ids.push((await api.create(spec.name, { ...body(), ...fill(fields) }))._id)
      // Updates write new markers over old ones; both must stay invisible.
      const changed = fill(fields)
      const updated = await api.request('PUT', `/${spec.name}/${ids[0]}`, { token, body: changed })
      t.equal(updated.status, 200, `${spec.name}: update`)
      // Exact-match filters on every encrypted field (D16) with a marker as the value.
      for (const field of fields) {
        const found = await api.request(
          'GET',
          `/${spec.name}?${field.name}=${encodeURIComponent(changed[field.name] as string)}`,
          { token },
        )
        t.equal(found.body.data?.total, 1, `${spec.name}.${field.name}: the filter finds the record`)
      }
      await api.request('DELETE', `/${spec.name}/${ids[2]}`, { token })
      t.equal((await api.request('GET', `/${spec.name}/${ids[1]}`, { token })).status, 200)
    }

    // Errors must not echo values either: a validation error and a unique conflict.
    const leaked = markerFor(api.service.spec.moduleByName.get('denuncias')!.fields.find((f) => f.encrypted)!)
    markers.push(leaked)
    const invalid = await api.request('POST', '/denuncias', { token, body: { denunciante_dni: leaked, tipo: 42 } })
    t.equal(invalid.status, 400)
    t.notOk(JSON.stringify(invalid.body).includes(leaked), 'a 400 does not echo the encrypted value')
    const nif = markerFor(api.service.spec.moduleByName.get('personal')!.fieldsByName.get('nif')!)
    markers.push(nif)
    await api.create('personal', { ...VALID['personal']!(), nif })
    const duplicate = await api.request('POST', '/personal', { token, body: { ...VALID['personal']!(), nif } })
    t.equal(duplicate.status, 409)
    t.notOk(JSON.stringify(duplicate.body).includes(nif), 'a 409 does not echo the encrypted value')

    // Accounts: passwords (D22) and tokens belong to the same rule for logs.
    const user = await api.userWithRole('agente')
    secrets.push(user.token, 'password-agente-1')
    const wrong = `wrong-${markerFor(api.service.spec.moduleByName.get('denuncias')!.fields[0]!)}`
    secrets.push(wrong)
    t.equal((await api.request('POST', '/auth/login', { body: { username: 'agente_1', password: wrong } })).status, 401)
    t.equal((await api.request('POST', '/auth/logout', { token: user.token })).status, 200)

    // Positive control: a plain (not encrypted) field's value must be found, or the scan proves nothing.
    const control = `CONTROL${Date.now()}plain`
    await api.create('denuncias', { ...VALID['denuncias']!(), denunciante_nombre: control })

    // SQLite: every file under DATA_DIR. PostgreSQL: its files are the server's, so every row of
    // every table as the server hands it out, plus the files DATA_DIR still holds.
    const scan = async (when: string) => {
      const files = filesUnder(api.dataDir)
        .filter((f) => basename(f.path) !== 'encryption.key')
        .map((f) => ({ name: basename(f.path), bytes: f.bytes }))
      if (ON_POSTGRES) files.push({ name: 'PostgreSQL tables', bytes: Buffer.from(await storedText(api)) })
      else
        t.ok(
          files.some((f) => f.name === 'records.db'),
          `${when}: the database file is scanned`,
        )
      t.ok(
        files.some((f) => f.bytes.includes(Buffer.from(control))),
        `${when}: the scan does find a plain field's value`,
      )
      let hits = 0
      for (const file of files)
        for (const value of [...markers, ...secrets.filter((s) => s !== token && s !== user.token)])
          for (const form of markerForms(value))
            if (file.bytes.includes(form)) {
              hits += 1
              t.fail(`${when}: '${value}' found in ${file.name}`)
            }
      t.equal(hits, 0, `${when}: no marker or password in ${files.map((f) => f.name).join(', ')}`)
    }
    // Reads are audited in batches: wait for the flush so the WAL holds the audit rows too.
    const audited = (rows: Record<string, unknown>[]) => rows.some((r) => r['action'] === 'consultar')
    t.ok(audited(await eventually(() => auditRows(api), audited)), 'the read audit landed')
    await new Promise((resolve) => setTimeout(resolve, 1200)) // and any later batch
    await scan('while open (WAL not checkpointed)')
    await api.service.close()
    // The tables of a closed PostgreSQL service cannot be read from here; SQLite's files can.
    if (!ON_POSTGRES) await scan('after close (WAL checkpointed)')

    const text = logs.text()
    t.ok(text.includes('"level":20') || text.includes('incoming request'), 'debug logs were captured')
    // The scan covers every request of the run, each line tied to its request id.
    const lines = text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
    const requestLines = lines.filter((l) => l['req'] !== undefined || l['res'] !== undefined)
    t.ok(
      requestLines.some((l) => (l['req'] as { path?: string } | undefined)?.path === '/api/auth/login'),
      'the logins were logged',
    )
    const incoming = lines.filter((l) => l['msg'] === 'incoming request').length
    t.ok(incoming > 30, `the CRUD run's requests were logged (${incoming})`)
    t.equal(lines.filter((l) => l['msg'] === 'request completed').length, incoming, 'each with its completion line')
    t.same(
      requestLines.filter((l) => typeof l['reqId'] !== 'string'),
      [],
      'each request line carries its request id',
    )
    t.notMatch(text, /Bearer /, 'no authorization header')
    for (const value of [...markers, ...secrets])
      t.notOk(text.includes(value), `logs do not contain '${value.slice(0, 12)}…'`)
  },
)
