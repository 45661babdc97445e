// Node flags the service runs with: `npm start` passes them (package.json, checked by
// a unit test) and the bench starts the service with them. V8 reads them at process start only,
// so they cannot be set from inside the service.
//
// --max-semi-space-size=4: V8's young generation otherwise grows to 3 x 16 MiB under load, and
// every request allocates short-lived objects (rows, JSON, buffers), so it does grow; capped at
// 4 MiB semi-spaces the service's peak RSS under the bench fell from about 215 to 160 MiB, with
// the CPU per request unchanged within the machine's noise.
// --min-semi-space-size=4: the same size from the start. A start grows the young generation from
// 1 MiB through 8 scavenges and an early full collection; at 4 MiB it takes 5 and no full
// collection, 20 to 30 ms less of a start's CPU. Under load it is 4 MiB either way.
// Not --max-old-space-size: at 192 MiB V8 collected sooner and the bench's peak fell from
// 210-225 to about 160 MiB, but 150 concurrent lists of 1,000 records (D11's largest page) then
// ran the heap out and the process aborted; without the cap it answered them all (851 MiB). A
// memory ceiling that turns a burst of legitimate reads into a crash is worse than the RSS.
// --heap-growing-percent=50: after each full collection V8 lets the old generation grow to 1.5x
// what survived, not to a factor of its own of up to 4x. Live data stays near 35 MiB under the
// bench, but 10,000 creates through the API on PostgreSQL let the heap reach 115 MiB of mostly
// garbage, and the process's peak RSS 245 MiB; with the factor fixed, 180 MiB, the seed as fast.
// Unlike a cap on the old space there is no ceiling: a burst that needs more memory still gets it.
// The factor is fixed in every mode, also where V8 would pick a smaller one (1.1 to 1.3) to save
// memory under pressure.
// Only --max-semi-space-size is allowed in NODE_OPTIONS: a service run without npm passes the
// flags to node itself (docs/operators.md).
export const SERVICE_NODE_FLAGS: readonly string[] = [
  '--max-semi-space-size=4',
  '--min-semi-space-size=4',
  '--heap-growing-percent=50',
]
