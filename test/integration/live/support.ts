// Shared by the live-feed tests: a test service listening on a real socket
// (an SSE stream cannot go through app.inject) and a way to open streams on it.
import type { Test } from 'tap'
import { startTestApi, VALID } from '../../helpers/api.js'
import { openSse, type SseStream } from '../../helpers/sse.js'

export async function listening(t: Test, env: Record<string, string> = {}, clock?: () => Date) {
  const api = await startTestApi(t, { env, ...(clock === undefined ? {} : { clock }) })
  const address = await api.service.app.listen({ port: 0, host: '127.0.0.1' })
  const streams: SseStream[] = []
  t.teardown(() => streams.forEach((s) => s.close()))
  const feed = async (query: string, token: string | undefined, headers: Record<string, string> = {}) => {
    const stream = await openSse(`${address}${api.base}/eventos${query}`, {
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      ...headers,
    })
    streams.push(stream)
    return stream
  }
  return { api, address, feed }
}

export const sala = () => VALID['sala092']!()
