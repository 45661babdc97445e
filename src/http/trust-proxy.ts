// Which proxies may name the client's address. Fastify's `trustProxy`
// walks X-Forwarded-For from the right, past trusted proxies only: the address counted is the
// one the nearest trusted proxy saw, never what the client wrote at the left of the header.
import { isIP } from 'node:net'
import { settingInvalid } from '../errors.js'

/** false: no proxy (the socket's address); n: n proxy hops in front; or proxy addresses/CIDRs. */
export type TrustProxy = false | number | readonly string[]

/** Names proxy-addr (Fastify's) understands for whole private ranges. */
const RANGES = new Set(['loopback', 'linklocal', 'uniquelocal'])

function isAddressOrCidr(entry: string): boolean {
  if (RANGES.has(entry)) return true
  const [address = '', prefix, ...rest] = entry.split('/')
  const family = isIP(address)
  if (family === 0 || rest.length > 0) return false
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128))
}

/**
 * TRUST_PROXY: unset, `false` or `0`: no proxy; a hop count (`1` behind one nginx); or a list of
 * proxy addresses and CIDRs (`127.0.0.1,10.0.0.0/8`). `true` means one hop: trusting every
 * hop would let a client choose its own address.
 */
export function parseTrustProxy(raw: string | undefined): TrustProxy {
  const value = (raw ?? '').trim().toLowerCase()
  if (['', 'false', 'no', 'off', '0'].includes(value)) return false
  if (['true', 'yes', 'on'].includes(value)) return 1
  if (/^\d+$/.test(value)) return Number(value)
  const entries = value
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '')
  const bad = entries.filter((e) => !isAddressOrCidr(e))
  if (bad.length > 0 || entries.length === 0)
    throw settingInvalid(
      `TRUST_PROXY: valor no válido '${bad.join("', '") || raw}' ` +
        '(use un número de proxies, p. ej. 1, o direcciones y CIDR: 127.0.0.1,10.0.0.0/8)',
    )
  return entries
}

/** Fastify's `trustProxy`: a hop count as the function proxy-addr builds for one (its types take no number). */
export function fastifyTrustProxy(trust: TrustProxy): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trust === 'number') return (_address, hop) => hop < trust
  return trust === false ? false : [...trust]
}
