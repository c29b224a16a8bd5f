// Streaming and cancellation through the gateway (SSE-*, PROG-*, CANCEL-*): progress relayed as SSE
// events the moment they arrive, and a client that closes its stream cancels the backend call.
// One SDK v2 backend as a child process; the gateway's access log is tapped to wait on outcomes.
import t from 'tap'
import type { CallToolResult } from '@modelcontextprotocol/client'
import { startFixture } from '../helpers/backend-process.ts'
import { startGateway, type LogRecord } from '../helpers/start-gateway.ts'
import { META, connectClient, createRawClient, metricValue, type SseEvent } from '../helpers/mcp-client.ts'

const BACKEND = new URL('../fixtures/sdk-http-backend.ts', import.meta.url).pathname
const STEPS = 3
const STEP_DELAY_MS = 150

const alpha = await startFixture(t, BACKEND, ['--name', 'alpha'])
const gateway = await startGateway(t, { backends: [{ name: 'a', transport: 'http', url: alpha.url, namespace: 'a' }] }, { logs: true })
const raw = createRawClient(t, gateway.url)
const logs = gateway.logs!

async function scrape(): Promise<string> {
  return (await raw.send('GET', '/metrics')).text
}

function accessLine(predicate: (record: LogRecord) => boolean): Promise<LogRecord> {
  return logs.waitFor((record) => record.msg === 'mcp request' && predicate(record))
}

t.test('progress with a token (raw) → SSE headers, progress events first, arriving while the backend still works', async (t) => {
  const stream = await raw.stream(
    'tools/call',
    { name: 'a__progress', arguments: { steps: STEPS, delayMs: STEP_DELAY_MS } },
    { id: 'p-1', meta: { progressToken: 'tok-1', [META.logLevel]: 'info' } },
  )
  t.equal(stream.status, 200)
  t.match(stream.headers['content-type'], /^text\/event-stream/)
  t.equal(stream.headers['cache-control'], 'no-cache')
  t.equal(stream.headers['x-accel-buffering'], 'no')
  const events: SseEvent[] = []
  let streamsWhileOpen: number | undefined
  for await (const event of stream.events) {
    events.push(event)
    if (events.length === 1) streamsWhileOpen = metricValue(await scrape(), 'mcp_gateway_sse_streams_active', { kind: 'response' })
  }
  const methods = events.map((e) => e.message.method ?? `response:${e.message.id}`)
  t.same(methods, ['notifications/progress', 'notifications/progress', 'notifications/progress', 'notifications/message', 'response:p-1'])
  t.same(events.slice(0, STEPS).map((e) => [e.message.params.progressToken, e.message.params.progress, e.message.params.total]),
    [['tok-1', 1, 3], ['tok-1', 2, 3], ['tok-1', 3, 3]], 'the client\'s own token, in order')
  t.match(events[3].message.params, { level: 'info', data: /progress finished/ })
  const final = events[STEPS + 1].message
  t.match(final.result, { resultType: 'complete', content: [{ type: 'text', text: 'done' }] })
  t.equal(streamsWhileOpen, 1, 'mcp_gateway_sse_streams_active{kind="response"} counted the open stream')
})

// Relayed as it arrives, proven by events, not timing: the backend's second step is ten minutes
// away, so the first progress event can only reach the client if the gateway does not buffer.
t.test('progress with the result ten minutes away → the first event arrives now (never buffered)', async (t) => {
  const controller = new AbortController()
  const stream = await raw.stream(
    'tools/call',
    { name: 'a__progress', arguments: { steps: 2, delayMs: 600_000 } },
    { id: 'p-slow', meta: { progressToken: 'slow' }, signal: controller.signal },
  )
  const first = await stream.events.next()
  t.match(first.value?.message, { method: 'notifications/progress', params: { progressToken: 'slow', progress: 1 } })
  controller.abort()
  await stream.events.return(undefined).catch(() => undefined)
  // Counted before the next subtest reads the counters: the cancellation's access line says so.
  t.match(await accessLine((r) => r.rpcId === 'p-slow'), { outcome: 'cancelled' }, 'the abandoned call counted as cancelled')
})

t.test('progress (SDK client) → onprogress and log handler fire before the result resolves', async (t) => {
  const client = await connectClient(t, gateway.url)
  const seen: string[] = []
  client.setNotificationHandler('notifications/message', (notification) => {
    seen.push(`log:${notification.params.level}`)
  })
  const result = (await client.callTool(
    { name: 'a__progress', arguments: { steps: STEPS, delayMs: 10 }, _meta: { [META.logLevel]: 'debug' } },
    { onprogress: (progress) => seen.push(`progress:${progress.progress}/${progress.total}`) },
  )) as CallToolResult
  const block = result.content[0]
  seen.push(`result:${block?.type === 'text' ? block.text : '?'}`)
  t.same(seen, ['progress:1/3', 'progress:2/3', 'progress:3/3', 'log:info', 'result:done'])
})

t.test('progress without a token or log level → plain JSON reply, no notifications relayed', async (t) => {
  const reply = await raw.rpc('tools/call', { name: 'a__progress', arguments: { steps: 2, delayMs: 0 } }, { id: 'quiet' })
  t.equal(reply.status, 200)
  t.match(reply.headers['content-type'], /^application\/json/)
  t.match(reply.json, { id: 'quiet', result: { content: [{ text: 'done' }] } })
})

t.test('log level above the backend message → log notification filtered out (LOG-7)', async (t) => {
  const stream = await raw.stream(
    'tools/call',
    { name: 'a__progress', arguments: { steps: 1, delayMs: 0 } },
    { id: 'lvl', meta: { progressToken: 7, [META.logLevel]: 'error' } },
  )
  const messages = []
  for await (const event of stream.events) messages.push(event.message)
  t.same(messages.map((m) => m.method ?? 'response'), ['notifications/progress', 'response'])
  t.equal(messages[0].params.progressToken, 7, 'integer token kept as an integer')
})

t.test('hang, then the SDK client aborts → the backend observes the abort, outcome "cancelled" counted', async (t) => {
  const before = metricValue(await scrape(), 'mcp_gateway_requests_total', { method: 'tools/call', outcome: 'cancelled' })
  const client = await connectClient(t, gateway.url)
  const controller = new AbortController()
  const call = client.callTool({ name: 'a__hang', arguments: {} }, { signal: controller.signal })
  t.same(await alpha.waitForEvent('started'), { event: 'started', tool: 'hang' })
  controller.abort()
  await t.rejects(call)
  t.same(await alpha.waitForEvent('aborted'), { event: 'aborted', tool: 'hang' }, 'backend saw the cancellation')
  const line = await accessLine((r) => r.tool === 'a__hang')
  t.match(line, { rpcMethod: 'tools/call', backend: 'a', tool: 'a__hang', outcome: 'cancelled' })
  const after = metricValue(await scrape(), 'mcp_gateway_requests_total', { method: 'tools/call', outcome: 'cancelled' })
  t.equal(after, before + 1, 'mcp_gateway_requests_total{method="tools/call",outcome="cancelled"} moved by one')
})

// The backend's second step is ten minutes away, so the access line (written only once the
// gateway is done with the request) can only arrive now if the gateway stopped waiting for the
// backend when the client left: the event proves it, no clock needed.
t.test('client closes an open SSE stream mid-progress → upstream call cancelled, nothing more counted as ok', async (t) => {
  const controller = new AbortController()
  const stream = await raw.stream(
    'tools/call',
    { name: 'a__progress', arguments: { steps: 2, delayMs: 600_000 } },
    { id: 'mid', meta: { progressToken: 'mid-tok' }, signal: controller.signal },
  )
  const first = await stream.events.next()
  t.equal(first.value?.message.params.progress, 1)
  controller.abort()
  await t.rejects(stream.events.next(), 'the reader sees its own abort')
  const line = await accessLine((r) => r.rpcId === 'mid')
  t.match(line, { rpcMethod: 'tools/call', tool: 'a__progress', outcome: 'cancelled', status: 499 })
})
