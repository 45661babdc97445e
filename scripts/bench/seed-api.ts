// Seeding through the HTTP API (`--seed api`): `count` creates posted by `concurrency`
// clients at once, as users would fill the database, so the service's tables, indexes and audit
// chain grow the way they do in use. Shared by every target: each names its path, token and body.

export interface ApiSeedTarget {
  readonly port: number
  readonly path: string
  readonly token: string
  readonly body: (values: Record<string, unknown>) => unknown
}

export async function seedThroughApi(
  target: ApiSeedTarget,
  count: number,
  valuesOf: (i: number) => Record<string, unknown>,
  concurrency = 10,
  onProgress?: (done: number) => void,
): Promise<void> {
  let next = 0
  let done = 0
  const client = async () => {
    for (;;) {
      const i = ++next
      if (i > count) return
      const response = await fetch(`http://127.0.0.1:${target.port}${target.path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${target.token}` },
        body: JSON.stringify(target.body(valuesOf(i))),
      })
      if (response.status !== 201 && response.status !== 200)
        throw new Error(`seeding ${target.path}: ${response.status} ${await response.text()}`)
      await response.arrayBuffer()
      if (++done % 2_000 === 0) onProgress?.(done)
    }
  }
  await Promise.all(Array.from({ length: concurrency }, client))
}
