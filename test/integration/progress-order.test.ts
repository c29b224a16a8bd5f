// Progress a backend sends out of order (PROG-2), on real sockets: the hostile fixture streams the
// progress values it is given, repeated, going back and not numbers among them. The client's
// stream gets only values that increase; the call still ends with its result.
// Before: every progress notification with the client's token was passed on as it came.
import t from 'tap'
import { startFixture } from '../helpers/backend-process.ts'
import { createRawClient } from '../helpers/mcp-client.ts'
import { startGateway } from '../helpers/start-gateway.ts'

const HOSTILE = new URL('../fixtures/hostile-backend.ts', import.meta.url).pathname
const backend = await startFixture(t, HOSTILE)
const gateway = await startGateway(t, { backends: [{ name: 'h', transport: 'http', url: backend.url, namespace: 'h' }] })
const raw = createRawClient(t, gateway.url)

t.test('progress 0, 1, 1, 0.5, "2", 2, null, 3 → the client sees 0, 1, 2, 3, then the result', async (t) => {
  const progress = [0, 1, 1, 0.5, '2', 2, null, 3]
  const stream = await raw.stream('tools/call', { name: 'h__flood', arguments: { progress, bytes: 1 } }, { id: 'p', meta: { progressToken: 'tok' } })
  const messages = []
  for await (const event of stream.events) messages.push(event.message)
  const seen = messages.filter((m) => m.method === 'notifications/progress')
  t.same(seen.map((m) => m.params.progress), [0, 1, 2, 3])
  t.ok(seen.every((m) => m.params.progressToken === 'tok'), 'each under the client\'s own token')
  t.match(messages.at(-1), { id: 'p', result: { content: [{ text: `flooded ${progress.length}` }] } }, 'the result last')
})
