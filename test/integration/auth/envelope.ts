// Shared assertions for the auth and http suites: every error leaves in one envelope (STYLE 4).
import type { Test } from 'tap'
import type { Reply } from '../../helpers/api.js'

/**
 * `reply` is `status` with exactly `{ success: false, error: message, details? }`; any message when `message` is a
 * RegExp it matches.
 */
export function assertError(
  t: Test,
  reply: Reply,
  status: number,
  message: string | RegExp,
  label = `${status} ${message}`,
): void {
  t.equal(reply.status, status, `${label}: status`)
  t.equal(reply.body?.success, false, `${label}: success is false`)
  t.type(reply.body?.error, 'string', `${label}: error is a string`)
  if (typeof message === 'string') t.equal(reply.body?.error, message, `${label}: message`)
  else t.match(reply.body?.error, message, `${label}: message`)
  const extra = Object.keys(reply.body ?? {}).filter((key) => !['success', 'error', 'details'].includes(key))
  t.same(extra, [], `${label}: nothing beside success, error and details`)
  if (reply.body?.details !== undefined) t.ok(Array.isArray(reply.body.details), `${label}: details is an array`)
}
