// A 2025-11-25 HTTP backend behind the gateway (ERA-1, ERA-4, LEGACY-C1..C6): the published
// @modelcontextprotocol/server-everything in Streamable HTTP mode as a real child process, reached
// by raw 2026-07-28 requests. The gateway must detect the legacy era, keep a session and relay
// tools, progress, resources and prompts as modern results.
import t from 'tap'
import { startEverythingHttp } from '../helpers/everything-http.ts'
import { startGateway } from '../helpers/start-gateway.ts'
import { createRawClient, type SseEvent } from '../helpers/mcp-client.ts'

const everything = await startEverythingHttp(t)
const gateway = await startGateway(t, { backends: [{ name: 'ev', transport: 'http', url: everything.url, namespace: '' }] }, { logs: true })
const raw = createRawClient(t, gateway.url)

t.test('era probe → legacy verdict logged at info and shown in /readyz', async (t) => {
  const verdict = await gateway.logs!.waitFor((record) => record.msg === 'backend era detected')
  t.match(verdict, { level: 30, backend: 'ev', era: 'legacy', protocolVersion: '2025-11-25', session: true })
  const reply = await raw.send('GET', '/readyz')
  t.equal(reply.status, 200)
  t.match(reply.json.backends, [{ name: 'ev', transport: 'http', up: true, era: 'legacy', protocolVersion: '2025-11-25' }])
})

t.test('tools/list → server-everything\'s tools, stamped for 2026-07-28', async (t) => {
  const reply = await raw.rpc('tools/list', {}, { id: 'tl' })
  t.equal(reply.status, 200)
  const names = reply.json.result.tools.map((tool: { name: string }) => tool.name)
  for (const name of ['echo', 'get-sum', 'trigger-long-running-operation']) t.ok(names.includes(name), `lists ${name}`)
  t.match(reply.json.result, { resultType: 'complete', ttlMs: Number, cacheScope: String })
})

t.test('tools/call echo → the echoed text as a complete result', async (t) => {
  const reply = await raw.rpc('tools/call', { name: 'echo', arguments: { message: 'hello legacy' } }, { id: 'e1' })
  t.equal(reply.status, 200)
  t.equal(reply.json.id, 'e1')
  t.match(reply.json.result, { resultType: 'complete', content: [{ type: 'text', text: /hello legacy/ }] })
})

t.test('tools/call get-sum → 5', async (t) => {
  const reply = await raw.rpc('tools/call', { name: 'get-sum', arguments: { a: 2, b: 3 } }, { id: 's1' })
  t.match(reply.json.result, { resultType: 'complete', content: [{ type: 'text', text: /5/ }] })
})

t.test('long-running operation with a progressToken → progress events over SSE before the result', async (t) => {
  const stream = await raw.stream('tools/call', { name: 'trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } },
    { id: 'lr', meta: { progressToken: 'tok-legacy' } })
  t.equal(stream.status, 200)
  t.match(stream.headers['content-type'], /^text\/event-stream/)
  const events: SseEvent[] = []
  for await (const event of stream.events) events.push(event)
  const methods = events.map((e) => e.message.method ?? `response:${e.message.id}`)
  t.same(methods, ['notifications/progress', 'notifications/progress', 'notifications/progress', 'response:lr'])
  t.same(events.slice(0, 3).map((e) => [e.message.params.progressToken, e.message.params.progress, e.message.params.total]),
    [['tok-legacy', 1, 3], ['tok-legacy', 2, 3], ['tok-legacy', 3, 3]])
  t.match(events[3].message.result, { resultType: 'complete', content: [{ type: 'text', text: /Long running operation completed/ }] })
})

t.test('resources/list then resources/read of the first one → its contents, stamped', async (t) => {
  const list = await raw.rpc('resources/list', {}, { id: 'rl' })
  const first = list.json.result.resources[0]
  t.ok(first, 'server-everything lists resources')
  const reply = await raw.rpc('resources/read', { uri: first.uri }, { id: 'rr' })
  t.equal(reply.status, 200)
  t.match(reply.json.result, { resultType: 'complete', ttlMs: Number, cacheScope: String, contents: [{ uri: first.uri }] })
})

t.test('prompts/get simple-prompt → its messages', async (t) => {
  const reply = await raw.rpc('prompts/get', { name: 'simple-prompt' }, { id: 'pg' })
  t.equal(reply.status, 200)
  t.match(reply.json.result, { resultType: 'complete', messages: [{ role: 'user', content: { type: 'text' } }] })
})

t.test('a tool that asks the client to sample → an error result, not a hang (capability not declared)', async (t) => {
  const reply = await raw.rpc('tools/call', { name: 'trigger-sampling-request', arguments: { prompt: 'hi' } }, { id: 'smp' })
  t.equal(reply.status, 200)
  t.equal(reply.json.id, 'smp')
  t.ok(reply.json.error !== undefined || reply.json.result?.isError === true, 'refused')
})
