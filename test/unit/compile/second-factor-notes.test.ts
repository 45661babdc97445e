// D42: `segundo_factor:` of a role in modules.yaml, compiled, and the warning of `records validate`
// for roles that may hand out access without requiring a factor.
import { readFileSync } from 'node:fs'
import t from 'tap'
import { compileService } from '../../../src/compile/service.js'
import { unguardedAccountRoles } from '../../../src/compile/second-factor-notes.js'
import { validateModulesSource } from '../../../src/config/validate.js'
import { SHIPPED_MODULES, configFrom, shippedService } from '../support/config.js'

const shipped = readFileSync(SHIPPED_MODULES, 'utf8')
/** The shipped file with `segundo_factor: <value>` under role `role`. */
const withRule = (role: string, value: string): string =>
  shipped.replace(`\n  ${role}:\n`, `\n  ${role}:\n    segundo_factor: ${value}\n`)
/** The line withRule writes for role `jefe`: the one below `  jefe:`. */
const ruleLine = shipped.slice(0, shipped.indexOf('\n  jefe:\n')).split('\n').length + 2

t.test('D42: shipped, no role requires a second factor', async (t) => {
  const service = shippedService()
  t.same(
    [...service.roles.values()].filter((r) => r.secondFactorRequired).map((r) => r.name),
    [],
  )
})

t.test('D42: segundo_factor: obligatorio compiles into the role', async (t) => {
  const service = compileService(configFrom(withRule('jefe', 'obligatorio')))
  t.equal(service.roles.get('jefe')?.secondFactorRequired, true)
  t.equal(service.roles.get('agente')?.secondFactorRequired, false)
})

t.test('D42: another value is refused with its position', async (t) => {
  const result = validateModulesSource(withRule('jefe', 'opcional'), 'm.yaml')
  t.equal(result.ok, false)
  if (result.ok) return
  t.match(result.problems, [{ file: 'm.yaml', line: ruleLine, message: /segundo_factor/ }])
})

t.test('D42: segundo_factor: passkey compiles into the role: a passkey, and only a passkey, required', async (t) => {
  t.equal(validateModulesSource(withRule('jefe', 'passkey'), 'm.yaml').ok, true, 'records validate accepts it')
  const service = compileService(configFrom(withRule('jefe', 'passkey')))
  t.match(service.roles.get('jefe'), { secondFactorRequired: true, passkeyRequired: true })
  t.match(service.roles.get('agente'), { secondFactorRequired: false, passkeyRequired: false })
  const totp = compileService(configFrom(withRule('jefe', 'obligatorio')))
  t.match(totp.roles.get('jefe'), { secondFactorRequired: true, passkeyRequired: false })
})

t.test('D42: validate warns for each role that manages accounts without requiring a factor', async (t) => {
  t.same(
    unguardedAccountRoles(shippedService()).map((w) => w.role),
    ['superadmin', 'administrador'],
    'shipped: superadmin and administrador',
  )
  t.match(unguardedAccountRoles(shippedService())[0]?.message, /segundo_factor: obligatorio/)
  const guarded = compileService(configFrom(withRule('superadmin', 'obligatorio')))
  t.same(
    unguardedAccountRoles(guarded).map((w) => w.role),
    ['administrador'],
    'a role that requires one is not warned about',
  )
})
