// Backend failures never hang and never break the other backends: a backend on a closed port drops
// out of the lists and shows in /readyz, a call to it is an in-band -32603 naming it; a backend that
// does not answer within its timeoutMs gives -32603 with reason "timeout" (ERR-7, E24, CANCEL-8).
import t from 'tap'
import { startFixture, stopChild } from '../helpers/backend-process.ts'
import { startGateway } from '../helpers/start-gateway.ts'
import { connectClient, createRawClient, metricValue } from '../helpers/mcp-client.ts'
import { findFreePort } from '../helpers/ports.ts'

const BACKEND = new URL('../fixtures/sdk-http-backend.ts', import.meta.url).pathname
const ORIGIN_KEY = 'io.github.mcp-gateway/origin'
const TIMEOUT_MS = 300
// The timeout subtest checks the deadline itself, so it is the one place that reads a clock: the
// call must last at least TIMEOUT_MS and end well before this ceiling (generous for a loaded 2-core
// machine, far below the 60 s default a broken deadline would fall back to).
const BOUNDED_MS = 10_000


const alpha = await startFixture(t, BACKEND, ['--name', 'alpha'])
const deadUrl = `http://127.0.0.1:${await findFreePort()}/mcp`

t.test('one backend down, one up', async (t) => {
  const gateway = await startGateway(t, {
    backends: [
      { name: 'down', transport: 'http', url: deadUrl, namespace: 'down', required: false },
      { name: 'live', transport: 'http', url: alpha.url, namespace: 'live' },
    ],
  }, { logs: true })
  const raw = createRawClient(t, gateway.url)

  t.test('tools/list → only the live backend\'s tools, no error', async (t) => {
    const client = await connectClient(t, gateway.url)
    const { tools } = await client.listTools()
    t.same(tools.map((tool) => tool.name).sort(), ['live__add', 'live__echo', 'live__fail', 'live__hang', 'live__progress'])
  })

  t.test('/readyz → 200 while the required backend is up; the down one (required: false) listed with up:false and a reason', async (t) => {
    const reply = await raw.send('GET', '/readyz')
    t.equal(reply.status, 200)
    t.equal(reply.json.status, 'ready')
    const byName = new Map(reply.json.backends.map((b: { name: string }) => [b.name, b]))
    t.match(byName.get('down'), { name: 'down', transport: 'http', up: false, reason: String })
    t.match(byName.get('live'), { name: 'live', up: true, era: 'modern' })
  })

  t.test('/metrics → mcp_gateway_backend_up 0 for the down backend, 1 for the live one', async (t) => {
    const text = (await raw.send('GET', '/metrics')).text
    t.equal(metricValue(text, 'mcp_gateway_backend_up', { backend: 'down' }), 0)
    t.equal(metricValue(text, 'mcp_gateway_backend_up', { backend: 'live' }), 1)
  })

  // No clock: a call that waited for its deadline would say reason "timeout"; "unreachable" means
  // the refused connection itself answered the call.
  t.test('tools/call down__echo → in-band -32603 with data.backend, HTTP 200, failed by the refusal, not a timeout', async (t) => {
    const reply = await raw.rpc('tools/call', { name: 'down__echo', arguments: { text: 'x' } }, { id: 'dead' })
    t.equal(reply.status, 200)
    t.equal(reply.json.id, 'dead')
    t.equal(reply.json.error?.code, -32603)
    t.match(reply.json.error?.data, { backend: 'down', reason: 'unreachable' })
  })

  // README "Errors": gateway-origin upstream failures carry {origin: "gateway", backend, reason},
  // whichever path found the backend down (ERR-7).
  t.test('tools/call down__echo → data marks the gateway as origin and gives a reason (ERR-7)', {
    
  }, async (t) => {
    const reply = await raw.rpc('tools/call', { name: 'down__echo', arguments: { text: 'x' } })
    t.match(reply.json.error?.data, { [ORIGIN_KEY]: 'gateway', backend: 'down', reason: 'unreachable' })
  })

  t.test('tools/call down__echo → counted as upstream_failure for backend "down"', {
    
  }, async (t) => {
    const reply = await raw.rpc('tools/call', { name: 'down__echo', arguments: { text: 'x' } }, { id: 'counted' })
    t.equal(reply.json.error?.code, -32603)
    const line = await gateway.logs!.waitFor((r) => r.msg === 'mcp request' && r.rpcId === 'counted')
    t.match(line, { backend: 'down', outcome: 'upstream_failure' })
    const text = (await raw.send('GET', '/metrics')).text
    t.ok(metricValue(text, 'mcp_gateway_upstream_requests_total', { backend: 'down', outcome: 'upstream_failure' }) >= 1)
  })

  t.test('tools/call live__echo → still answered by the live backend', async (t) => {
    const reply = await raw.rpc('tools/call', { name: 'live__echo', arguments: { text: 'ok' } })
    t.equal(reply.status, 200)
    t.match(reply.json.result, { content: [{ text: 'alpha:ok' }] })
  })
})

t.test('every backend down → /readyz 503, tools/list an empty list, discover still answers', async (t) => {
  const gateway = await startGateway(t, { backends: [{ name: 'down', transport: 'http', url: deadUrl, namespace: 'down' }] })
  const raw = createRawClient(t, gateway.url)
  const ready = await raw.send('GET', '/readyz')
  t.equal(ready.status, 503)
  t.match(ready.json, { status: 'not ready', backends: [{ name: 'down', up: false }] })
  const list = await raw.rpc('tools/list')
  t.equal(list.status, 200)
  t.same(list.json.result.tools, [])
  const discover = await raw.rpc('server/discover')
  t.equal(discover.status, 200)
  t.ok(discover.json.result.capabilities.tools, 'tools always declared')
})

t.test(`backend with timeoutMs ${TIMEOUT_MS}, tool hangs → -32603 reason "timeout" within a bounded time`, async (t) => {
  const gateway = await startGateway(t, {
    backends: [{ name: 'slow', transport: 'http', url: alpha.url, namespace: 'slow', timeoutMs: TIMEOUT_MS }],
  }, { logs: true })
  const raw = createRawClient(t, gateway.url)
  const ready = await raw.send('GET', '/readyz')
  t.match(ready.json.backends, [{ name: 'slow', up: true }], 'the probe itself fit in the timeout')
  const started = performance.now()
  const reply = await raw.rpc('tools/call', { name: 'slow__hang', arguments: {} }, { id: 'slow-1' })
  const elapsed = performance.now() - started
  t.equal(reply.status, 200)
  t.equal(reply.json.id, 'slow-1')
  t.equal(reply.json.error?.code, -32603)
  t.match(reply.json.error?.data, { [ORIGIN_KEY]: 'gateway', backend: 'slow', reason: 'timeout' })
  // The deadline is the behaviour under test: not before TIMEOUT_MS (a few ms of timer rounding
  // allowed), and nowhere near a hang.
  t.ok(elapsed >= TIMEOUT_MS - 20, `waited for the timeout (${elapsed.toFixed(0)}ms)`)
  t.ok(elapsed < BOUNDED_MS, `and no longer than a bound (${elapsed.toFixed(0)}ms)`)
  // The timeout cancels upstream (CANCEL-8): the backend sees the call aborted.
  t.same(await alpha.waitForEvent('started'), { event: 'started', tool: 'hang' })
  t.same(await alpha.waitForEvent('aborted'), { event: 'aborted', tool: 'hang' })
  const line = await gateway.logs!.waitFor((r) => r.msg === 'mcp request' && r.rpcId === 'slow-1')
  t.match(line, { backend: 'slow', tool: 'slow__hang', outcome: 'upstream_failure' })
  const text = (await raw.send('GET', '/metrics')).text
  t.equal(metricValue(text, 'mcp_gateway_upstream_requests_total', { backend: 'slow', outcome: 'upstream_failure' }), 1)
  t.equal(metricValue(text, 'mcp_gateway_backend_up', { backend: 'slow' }), 1, 'a timeout does not mark the backend down')

  t.test('timeout after progress began streaming → the error is the last SSE event, HTTP 200', async (t) => {
    const stream = await raw.stream('tools/call', { name: 'slow__progress', arguments: { steps: 50, delayMs: 100 } }, {
      id: 'slow-sse',
      meta: { progressToken: 'slow' },
    })
    t.equal(stream.status, 200)
    t.match(stream.headers['content-type'], /^text\/event-stream/)
    const messages = []
    for await (const event of stream.events) messages.push(event.message)
    t.ok(messages.length >= 2, 'at least one progress event, then the final message')
    t.ok(messages.slice(0, -1).every((m) => m.method === 'notifications/progress'), 'progress first')
    const last = messages.at(-1)
    t.equal(last.id, 'slow-sse')
    t.equal(last.error?.code, -32603)
    t.match(last.error?.data, { [ORIGIN_KEY]: 'gateway', backend: 'slow', reason: 'timeout' })
  })
})

t.test('a backend dies, then comes back on the same port', async (t) => {
  let gamma = await startFixture(t, BACKEND, ['--name', 'gamma'])
  const port = new URL(gamma.url).port
  const gateway = await startGateway(t, {
    backends: [
      { name: 'g', transport: 'http', url: gamma.url, namespace: 'g', required: false },
      { name: 'live', transport: 'http', url: alpha.url, namespace: 'live' },
    ],
  }, { logs: true })
  const logs = gateway.logs!
  const raw = createRawClient(t, gateway.url)
  const backendUp = (r: Record<string, unknown>): boolean => r.msg === 'backend up' && r.backend === 'g'
  await logs.waitFor(backendUp)
  const names = async (): Promise<string[]> => {
    const pages: string[] = []
    let cursor: string | undefined
    do {
      const reply = await raw.rpc('tools/list', cursor === undefined ? {} : { cursor })
      pages.push(...reply.json.result.tools.map((tool: { name: string }) => tool.name))
      cursor = reply.json.result.nextCursor
    } while (cursor !== undefined)
    return pages
  }
  t.ok((await names()).includes('g__echo'), 'listed while up')

  await stopChild(gamma.child)
  const dead = await raw.rpc('tools/call', { name: 'g__echo', arguments: { text: 'x' } }, { id: 'dead' })
  t.equal(dead.status, 200)
  t.equal(dead.json.error?.code, -32603)
  t.match(dead.json.error?.data, { [ORIGIN_KEY]: 'gateway', backend: 'g', reason: 'unreachable' })
  // One failed request is not proof: the probe it triggers finds the backend gone and marks it down.
  await logs.waitFor((r) => r.msg === 'backend down' && r.backend === 'g')
  const ready = await raw.send('GET', '/readyz')
  t.equal(ready.status, 200, 'still ready: "live" is up')
  t.match(ready.json.backends.find((b: { name: string }) => b.name === 'g'), { up: false })
  const whileDown = await names()
  t.notOk(whileDown.some((n) => n.startsWith('g__')), 'dropped out of tools/list')
  t.ok(whileDown.includes('live__echo'), 'the live backend still listed')

  gamma = await startFixture(t, BACKEND, ['--name', 'gamma', '--port', port])
  await logs.waitFor(backendUp)
  t.ok((await names()).includes('g__echo'), 'listed again once re-probed')
  const back = await raw.rpc('tools/call', { name: 'g__echo', arguments: { text: 'back' } })
  t.match(back.json.result, { content: [{ text: 'gamma:back' }] })
  const transitions = logs.seen().filter((r) => r.backend === 'g' && (r.msg === 'backend down' || r.msg === 'backend up')).map((r) => r.msg)
  t.same(transitions, ['backend up', 'backend down', 'backend up'], 'each transition logged once, however many probes failed')
  t.match(logs.seen().find((r) => r.msg === 'backend down' && r.backend === 'g'), { level: 40, reason: /cannot reach backend/ }, 'the reason in words')
})

t.test('a backend reply over maxReplyBytes → -32603 bad reply naming the backend, never buffered whole', async (t) => {
  const gateway = await startGateway(t, { backends: [{ name: 'small', transport: 'http', url: alpha.url, namespace: 's', maxReplyBytes: 1024 }] })
  const raw = createRawClient(t, gateway.url)
  const reply = await raw.rpc('tools/call', { name: 's__echo', arguments: { text: 'x'.repeat(4096) } }, { id: 'big' })
  t.equal(reply.status, 200)
  t.match(reply.json, { id: 'big', error: { code: -32603, data: { backend: 'small', reason: 'bad_reply' } } })
  const fine = await raw.rpc('tools/call', { name: 's__echo', arguments: { text: 'short' } }, { id: 'ok' })
  t.match(fine.json, { id: 'ok', result: { content: [{ text: 'alpha:short' }] } }, 'small replies still pass')
})
