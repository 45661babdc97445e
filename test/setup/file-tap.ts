// What `import t from 'tap'` gives a test file and the test helpers (test/setup/esbuild-hooks.mjs
// sends them here): the test of the file being run. A test process of `npx tap <file>` runs one
// file, and that is tap's root test. Under scripts/tap.mjs a test process runs several files one
// after another (test/setup/file-queue.ts), each inside a test of its own: what a file hangs on
// its `t` (teardowns, a timeout, its tests) then belongs to that file and ends with it.
import tap, { type Test } from 'tap'

let file: Test | undefined

/** Makes `test` the test that `t` names until the next file begins. */
export function beginFile(test: Test): void {
  file = test
}

const current = (): typeof tap => (file as typeof tap | undefined) ?? tap

export default new Proxy(tap, {
  get(_, key) {
    const target = current()
    const value: unknown = Reflect.get(target, key, target)
    return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value
  },
})
