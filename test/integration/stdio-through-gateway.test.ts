// stdio backends at the gateway level (STDIO-9/10, RPC-2, PROG-7, CANCEL-3, ERR-7):
// raw 2026-07-28 clients on real sockets, one long-lived SDK fixture child per backend. Colliding
// ids and progress tokens from 50 clients never cross; a client's abort reaches the child as
// notifications/cancelled; a child killed mid-call fails its calls at once, shows down in /readyz
// and mcp_gateway_backend_up while the other backend stays up, and comes back. Every wait is on a
// gateway log line or a fixture event (the fixtures' stderr, logged by the gateway), never a sleep.
import { execFileSync } from 'node:child_process'
import { closeSync, constants, mkdtempSync, openSync, rmSync, unlinkSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { createRawClient, metricValue, type RawMcpClient, type SseEvent } from '../helpers/mcp-client.ts'
import { startGateway, type LogRecord, type StartedGateway } from '../helpers/start-gateway.ts'
import { readStderrEvent } from '../helpers/stdio-log-capture.ts'

const FIXTURES = new URL('../fixtures/', import.meta.url)
const CLIENTS = 50
// Long enough that a call failed by its timeout is told apart by its reason ("timeout"), not by a clock.
const TIMEOUT_MS = 60_000

function stdioBackend(name: string, fixture: string, extraArgs: string[] = []): Record<string, unknown> {
  const args = [new URL(`${fixture}.ts`, FIXTURES).pathname, ...extraArgs]
  return { name, transport: 'stdio', command: process.execPath, args, env: {}, namespace: name, timeoutMs: TIMEOUT_MS }
}

// Where the kill test puts a FIFO that holds the restarted modern child before it serves; until
// then nothing is there and every modern child starts at once (stdio-modern.ts, --hold-fifo).
const holdDir = mkdtempSync(join(tmpdir(), 'stdio-hold-'))
t.teardown(() => rmSync(holdDir, { recursive: true, force: true }))
const HOLD_FIFO = join(holdDir, 'hold')

const gateway = await startGateway(t, { backends: [stdioBackend('modern', 'stdio-modern', ['--hold-fifo', HOLD_FIFO]), stdioBackend('other', 'stdio-legacy')] }, { logs: true, logLevel: 'debug' })
const raw = createRawClient(t, gateway.url)

// The next fixture event (a JSON line on the child's stderr, logged by the gateway) from `backend`.
async function fixtureEvent(gw: StartedGateway, backend: string, predicate: (event: LogRecord) => boolean): Promise<LogRecord> {
  const record = await gw.logs!.waitFor((entry) => {
    const event = readStderrEvent(entry)
    return entry.backend === backend && event !== undefined && predicate(event)
  })
  return readStderrEvent(record)!
}

async function toolText(client: RawMcpClient, name: string, args: Record<string, unknown> = {}): Promise<string> {
  const reply = await client.rpc('tools/call', { name, arguments: args }, { id: `${name}-call` })
  const content = reply.json.result?.content as Array<{ text?: string }> | undefined
  if (content?.[0]?.text === undefined) throw new Error(`${name}: no text in ${reply.text}`)
  return content[0].text
}

async function collect(events: AsyncGenerator<SseEvent>): Promise<any[]> {
  const messages: any[] = []
  for await (const event of events) messages.push(event.message)
  return messages
}

// Makes the next modern child wait for release() before it serves. O_RDWR opens a FIFO without
// waiting for a reader (Linux), and keeps the byte in the pipe until the child reads it; closing it
// at teardown gives a child still held EOF, so nothing stays blocked.
function holdNextChild(t: Test): { release(): void } {
  execFileSync('mkfifo', [HOLD_FIFO])
  const fd = openSync(HOLD_FIFO, constants.O_RDWR)
  t.teardown(() => closeSync(fd))
  // Unlinked once released: any later child finds no FIFO and starts at once.
  return { release: () => (writeSync(fd, 'x'), unlinkSync(HOLD_FIFO)) }
}

async function backendStates(): Promise<{ ready: any; metrics: string }> {
  const [ready, metrics] = await Promise.all([raw.send('GET', '/readyz'), raw.send('GET', '/metrics')])
  return { ready: ready.json, metrics: metrics.text }
}

function backendUp(metrics: string, backend: string): number {
  return metricValue(metrics, 'mcp_gateway_backend_up', { backend })
}

t.test(`${CLIENTS} clients, one JSON-RPC id and one progressToken, one child → each its own progress and result`, async (t) => {
  const pid = await toolText(raw, 'modern__pid')
  const runs = Array.from({ length: CLIENTS }, async (_, index) => {
    const client = createRawClient(t, gateway.url)
    const args = { steps: 3, delayMs: 2, tag: `c${index}` }
    const stream = await client.stream('tools/call', { name: 'modern__progress', arguments: args }, { id: 1, meta: { progressToken: 'same-token' } })
    return { index, status: stream.status, messages: await collect(stream.events) }
  })
  for (const { index, status, messages } of await Promise.all(runs)) {
    t.equal(status, 200)
    const progress = messages.filter((message) => message.method === 'notifications/progress').map((message) => message.params)
    t.same(progress, [1, 2, 3].map((step) => ({ progressToken: 'same-token', progress: step, total: 3, message: `c${index}` })),
      `client ${index}: its own progress, its own token restored`)
    t.match(messages.at(-1), { id: 1, result: { resultType: 'complete', content: [{ type: 'text', text: `done c${index}` }] } },
      `client ${index}: its own result, last`)
  }
  t.equal(await toolText(raw, 'modern__pid'), pid, 'all over the one child')
})

t.test('a client aborts a long call → notifications/cancelled for that call reaches the child (CANCEL-3)', async (t) => {
  const controller = new AbortController()
  const call = raw.stream('tools/call', { name: 'modern__hang', arguments: {} }, { id: 1, signal: controller.signal }).catch((err: unknown) => err)
  const hanging = await fixtureEvent(gateway, 'modern', (event) => event.event === 'hanging')
  t.match(hanging.requestId, /^gw-/, 'the child sees the gateway\'s id, not the client\'s')
  controller.abort()
  t.match(await call, { name: 'AbortError' })
  const cancelled = await fixtureEvent(gateway, 'modern', (event) => event.event === 'cancelled')
  t.equal(cancelled.requestId, hanging.requestId, 'the child cancelled that very request')
  t.match(await gateway.logs!.waitFor((record) => record.msg === 'cancelled stdio backend request'), { backend: 'modern', rpcId: hanging.requestId })
  t.equal(await toolText(raw, 'modern__echo', { text: 'still here' }), 'still here')
})

t.test('the child is killed mid-call → -32603 at once naming it, down in /readyz and metrics, others unaffected, then back', async (t) => {
  const oldPid = Number(await toolText(raw, 'modern__pid'))
  // Armed only now that the first child serves: its successor waits for release() below.
  const hold = holdNextChild(t)
  const calls = [createRawClient(t, gateway.url), createRawClient(t, gateway.url)].map((client, index) =>
    client.rpc('tools/call', { name: 'modern__hang', arguments: {} }, { id: `in-flight-${index}` }))
  await fixtureEvent(gateway, 'modern', (event) => event.event === 'hanging')
  await fixtureEvent(gateway, 'modern', (event) => event.event === 'hanging')
  process.kill(oldPid, 'SIGKILL')
  // Failed by the child's exit, not by the timeout: the reason says which ("closed", not "timeout").
  for (const [index, reply] of (await Promise.all(calls)).entries()) {
    t.equal(reply.status, 200, 'in-band error')
    t.match(reply.json, { id: `in-flight-${index}`, error: { code: -32603, message: /"modern" exited on signal SIGKILL/, data: { backend: 'modern', reason: 'closed' } } })
  }

  // The restart waits its backoff (250 ms first), then the new child is held until release():
  // the status is read inside that window however slow this test runs.
  const down = await gateway.logs!.waitFor((record) => record.msg === 'backend down' && record.backend === 'modern')
  t.match(down, { reason: 'child exited on signal SIGKILL', delayMs: Number })
  const during = await backendStates()
  t.match(during.ready, { status: 'ready', backends: [{ name: 'modern', up: false, reason: /exited on signal SIGKILL/ }, { name: 'other', up: true }] })
  t.equal(backendUp(during.metrics, 'modern'), 0, 'mcp_gateway_backend_up{backend="modern"} 0')
  t.equal(backendUp(during.metrics, 'other'), 1, 'mcp_gateway_backend_up{backend="other"} 1')
  t.equal(await toolText(raw, 'other__echo', { text: 'unaffected' }), 'unaffected', 'the other backend still answers')
  // The successor really was held (it opened the FIFO), so the window above was ours to end.
  await fixtureEvent(gateway, 'modern', (event) => event.event === 'held')
  hold.release()

  await gateway.logs!.waitFor((record) => record.msg === 'backend up' && record.backend === 'modern' && record.childPid !== oldPid)
  const after = await backendStates()
  t.match(after.ready.backends, [{ name: 'modern', up: true, era: 'modern' }, { name: 'other', up: true }])
  t.equal(backendUp(after.metrics, 'modern'), 1)
  t.equal(await toolText(raw, 'modern__echo', { text: 'back again' }), 'back again', 'a later call succeeds')
  t.not(Number(await toolText(raw, 'modern__pid')), oldPid, 'on a new child')
})
