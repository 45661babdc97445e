// Environment settings are checked like modules.yaml (STYLE.md section 4): a start refused for
// its settings names every setting it cannot use at once, one per line, and leaves no secret
// generated behind.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { loadSettings } from '../../../src/app/settings.js'
import { isOperatorError, type OperatorError } from '../../../src/errors.js'

function dataDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'records-settings-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

function refusal(load: () => unknown): OperatorError {
  try {
    load()
  } catch (error) {
    if (isOperatorError(error)) return error
    throw error
  }
  throw new Error('the settings were accepted')
}

t.test('every setting the service cannot use is named at once, one per line', async (t) => {
  const dir = dataDir(t)
  const error = refusal(() =>
    loadSettings({
      DATA_DIR: dir,
      PORT: 'ochenta',
      RATE_LIMIT_IP_PER_MINUTE: '0',
      TRUST_PROXY: 'el de delante',
      CORS_ORIGINS: 'panel.ayto.example',
      LOG_LEVEL: 'verbose',
      LOG_FORMAT: 'xml',
      CONSOLE_ENABLED: 'no',
      WEBAUTHN_RP_ID: 'https://records.ayto.example',
      JWT_SECRET: 'corto',
      RECORDS_ENCRYPTION_KEY: 'c29sbyBlc3Rv',
    }),
  )
  t.equal(error.code, 'SETTING_INVALID')
  t.match(error.items, [
    /^PORT debe ser un número entero >= 0 \(recibido 'ochenta'\)$/,
    /^RATE_LIMIT_IP_PER_MINUTE debe ser un número entero >= 1/,
    /^TRUST_PROXY: valor no válido 'el de delante'/,
    /^CORS_ORIGINS: origen no válido 'panel.ayto.example'/,
    /^LOG_LEVEL admite fatal, error, warn, info, debug, trace, silent \(recibido 'verbose'\)$/,
    /^LOG_FORMAT admite pretty o json \(recibido 'xml'\)$/,
    /^CONSOLE_ENABLED admite true o false \(recibido 'no'\)$/,
    /^WEBAUTHN_RP_ID debe ser un nombre de dominio/,
    /^JWT_SECRET debe tener al menos 32 caracteres$/,
    /^RECORDS_ENCRYPTION_KEY: la clave de cifrado debe ser de 32 bytes/,
  ])
  t.equal(error.items.length, 10, 'nothing else')
  t.equal(error.message, error.items.join('\n'), 'the message lists them, one per line')
  t.same(readdirSync(dir), [], 'no secret was generated for a start that is refused')
})

t.test('D42: the passkeys relying party, by default from HOST and PORT', async (t) => {
  const dir = dataDir(t)
  t.same(
    loadSettings({ DATA_DIR: dir }).webauthn,
    { rpId: 'localhost', origin: 'http://localhost:3000' },
    'development',
  )
  t.same(loadSettings({ DATA_DIR: dir, HOST: '0.0.0.0', PORT: '8080' }).webauthn, {
    rpId: 'localhost',
    origin: 'http://localhost:8080',
  })
  t.same(loadSettings({ DATA_DIR: dir, HOST: 'records.ayto.example' }).webauthn, {
    rpId: 'records.ayto.example',
    origin: 'https://records.ayto.example',
  })
  t.same(
    loadSettings({ DATA_DIR: dir, WEBAUTHN_RP_ID: 'ayto.example', WEBAUTHN_ORIGIN: 'https://panel.ayto.example/' })
      .webauthn,
    { rpId: 'ayto.example', origin: 'https://panel.ayto.example' },
    'a subdomain of the RP id; the trailing slash dropped',
  )
  const refused = (env: Record<string, string>) => refusal(() => loadSettings({ DATA_DIR: dir, ...env })).items
  t.match(refused({ WEBAUTHN_RP_ID: '10.0.0.5' }), [/^WEBAUTHN_RP_ID debe ser un nombre de dominio/], 'no address')
  t.match(refused({ WEBAUTHN_RP_ID: 'ayto.example', WEBAUTHN_ORIGIN: 'https://otro.example' }), [
    /^WEBAUTHN_ORIGIN debe ser scheme:\/\/host\[:puerto\] con host ayto.example/,
  ])
  t.match(refused({ WEBAUTHN_RP_ID: 'ayto.example', WEBAUTHN_ORIGIN: 'http://panel.ayto.example' }), [
    /^WEBAUTHN_ORIGIN debe usar https fuera de localhost/,
  ])
  t.match(refused({ WEBAUTHN_ORIGIN: 'http://localhost:3000/panel' }), [/^WEBAUTHN_ORIGIN debe ser scheme/], 'no path')
})

t.test('one bad setting is its own sentence, as before', async (t) => {
  const error = refusal(() => loadSettings({ DATA_DIR: dataDir(t), LOG_FORMAT: 'xml' }))
  t.equal(error.message, "LOG_FORMAT admite pretty o json (recibido 'xml')")
  t.same(error.items, [error.message])
})

t.test('a secret of DATA_DIR is checked once the environment is valid', async (t) => {
  const dir = dataDir(t)
  const settings = loadSettings({ DATA_DIR: dir, LOG_LEVEL: 'warn', LOG_FORMAT: 'json', TRUST_PROXY: '1' })
  t.match(settings, {
    logLevel: 'warn',
    logFormat: 'json',
    trustProxy: 1,
    generated: ['JWT_SECRET', 'RECORDS_ENCRYPTION_KEY'],
  })
  t.same(readdirSync(dir).sort(), ['encryption.key', 'jwt-secret'])
})
