// stdio backends on real child processes: era probe, multiplexing, cancellation, crash and
// restart, listen streams, shutdown (STDIO-*, CANCEL-3/6/8, PROG-7, RPC-2, SUB-12, LEGACY-C*).
import { execFileSync, spawn } from 'node:child_process'
import { once } from 'node:events'
import { createReadStream, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import t from 'tap'
import type { JsonRpcNotification } from '../../src/protocol/jsonrpc.ts'
import { readStderrEvent } from '../helpers/stdio-log-capture.ts'
import {
  FAST, FIXTURES, callTool, createHarness, deadline, fixtureConfig, isProcessGone, recordingSink, scriptedConfig, subscriptionIdOf, toolText,
} from '../helpers/stdio-harness.ts'

t.test('era probe', async (t) => {
  t.test('modern fixture → modern via server/discover, its capabilities kept', async (t) => {
    const { backend, logs } = createHarness(t, fixtureConfig('stdio-modern'))
    await backend.start()
    t.same(backend.status(), { name: 'modern', transport: 'stdio', era: 'modern', up: true, protocolVersion: '2026-07-28' })
    t.same(backend.capabilities(), { tools: { listChanged: true }, logging: {} })
    t.match(logs.records.find((record) => record.msg === 'backend up'), { backend: 'modern', probe: 'DiscoverResult' })
    t.equal(await toolText(backend, 'echo', { text: 'hello' }), 'hello')
  })

  t.test('legacy fixture → -32601 to discover, then initialize and initialized', async (t) => {
    const { backend, logs } = createHarness(t, fixtureConfig('stdio-legacy'))
    await backend.start()
    t.same(backend.status(), { name: 'legacy', transport: 'stdio', era: 'legacy', up: true, protocolVersion: '2025-11-25' })
    t.same(backend.capabilities(), { tools: { listChanged: true }, logging: {} })
    t.match(logs.records.find((record) => record.msg === 'backend up'), { probe: 'server/discover answered error -32601' })
    t.equal(await toolText(backend, 'echo', { text: 'hello' }), 'hello', 'the session is initialized: calls work')
  })

  t.test('legacy child\'s ping → answered {}; other requests → -32601 (LEGACY-12, LEGACY-C5)', async (t) => {
    const { backend } = createHarness(t, fixtureConfig('stdio-legacy'))
    await backend.start()
    t.equal(await toolText(backend, 'ping-client'), 'pong')
    t.equal(await toolText(backend, 'ask-roots'), 'error -32601')
  })
})

t.test('environment is exactly config.env', async (t) => {
  process.env.MCP_GATEWAY_STDIO_TEST_LEAK = 'must not leak'
  t.teardown(() => { delete process.env.MCP_GATEWAY_STDIO_TEST_LEAK })
  const { backend } = createHarness(t, fixtureConfig('stdio-modern', { env: { ONLY_THIS: 'yes' } }))
  await backend.start()
  const env = JSON.parse(await toolText(backend, 'env')) as Record<string, string>
  // tap's coverage hook (@tapjs/processinfo) injects its own variables into every spawn; nothing else may appear.
  const own = Object.keys(env).filter((key) => !key.startsWith('_TAPJS_PROCESSINFO_') && !(key === 'NODE_OPTIONS' && env[key].includes('@tapjs/processinfo')))
  t.same(own, ['ONLY_THIS'])
  t.equal(env.ONLY_THIS, 'yes')
})

for (const fixture of ['stdio-modern', 'stdio-legacy'] as const) {
  t.test(`${fixture}: 50 concurrent calls with colliding progress tokens → each its own answer and progress`, async (t) => {
    const { backend } = createHarness(t, fixtureConfig(fixture))
    await backend.start()
    const runs = Array.from({ length: 50 }, async (_, index) => {
      const seen: JsonRpcNotification[] = []
      const token = index % 2 === 0 ? 'same-token' : 1
      const reply = await callTool(backend, 'progress', { steps: 3, delayMs: 1, tag: `c${index}` }, {
        meta: { progressToken: token },
        onNotification: (notification) => seen.push(notification),
      })
      return { index, token, reply, seen }
    })
    for (const { index, token, reply, seen } of await Promise.all(runs)) {
      t.match(reply, { ok: true, result: { content: [{ type: 'text', text: `done c${index}` }] } }, `call ${index}: its own result`)
      t.same(seen.map((n) => n.params), [1, 2, 3].map((progress) => ({ progressToken: token, progress, total: 3, message: `c${index}` })),
        `call ${index}: its own progress, its own token restored, before the result`)
    }
  })

  t.test(`${fixture}: cancellation reaches the child as notifications/cancelled (CANCEL-3)`, async (t) => {
    const { backend, waitForEvent } = createHarness(t, fixtureConfig(fixture))
    await backend.start()
    const controller = new AbortController()
    const call = callTool(backend, 'hang', {}, { signal: controller.signal })
    const hanging = await waitForEvent((event) => event.event === 'hanging')
    t.match(hanging.requestId, /^gw-[0-9a-f]{8}-\d+$/, 'the child sees the gateway\'s id')
    controller.abort('client closed the stream')
    await t.rejects(call, { name: 'BackendError', reason: 'aborted', message: /client closed the stream/ })
    const cancelled = await waitForEvent((event) => event.event === 'cancelled')
    t.equal(cancelled.requestId, hanging.requestId, 'the child cancelled that very request')
    t.equal(await toolText(backend, 'echo', { text: 'still fine' }), 'still fine')
  })
}

t.test('timeout → cancelled upstream, rejected with reason timeout (CANCEL-8)', async (t) => {
  const { backend, waitForEvent } = createHarness(t, fixtureConfig('stdio-modern', { timeoutMs: 200 }))
  await backend.start()
  await t.rejects(callTool(backend, 'hang'), { name: 'BackendError', reason: 'timeout', message: /timed out: no answer within 200 ms/ })
  await waitForEvent((event) => event.event === 'cancelled')
})

t.test('modern: a log for the only call that asked for logs → delivered to it', async (t) => {
  const { backend } = createHarness(t, fixtureConfig('stdio-modern'))
  await backend.start()
  const seen: JsonRpcNotification[] = []
  const reply = await callTool(backend, 'log', {}, { meta: { 'io.modelcontextprotocol/logLevel': 'info' }, onNotification: (n) => seen.push(n) })
  t.ok(reply.ok)
  t.same(seen, [{ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: { from: 'log tool' } } }])
})

t.test('child crash mid-call → in-flight calls fail at once naming the backend; restart; later calls succeed', async (t) => {
  const { backend, waitForStatus, waitForEvent } = createHarness(t, fixtureConfig('stdio-modern'))
  await backend.start()
  const firstPid = await toolText(backend, 'pid')
  const hang = callTool(backend, 'hang')
  await waitForEvent((event) => event.event === 'hanging')
  const down = waitForStatus((status) => !status.up)
  const crash = callTool(backend, 'crash')
  const expected = { name: 'BackendError', backend: 'modern', reason: 'closed', message: 'stdio backend "modern" exited with code 1 while the call was in flight' }
  await t.rejects(crash, expected)
  await t.rejects(hang, expected)
  t.match(await down, { up: false, reason: /^child exited with code 1; restarting in \d+ ms$/ })
  t.equal(backend.status().up, false, 'the calls failed before the restart')
  await t.rejects(toolText(backend, 'echo', { text: 'x' }), { reason: 'unreachable', message: /^stdio backend "modern" is down: child exited with code 1/ })
  await waitForStatus((status) => status.up)
  t.same(backend.status(), { name: 'modern', transport: 'stdio', era: 'modern', up: true, protocolVersion: '2026-07-28' })
  t.equal(await toolText(backend, 'echo', { text: 'after restart' }), 'after restart')
  t.not(await toolText(backend, 'pid'), firstPid, 'a new child')
})

t.test('modern listen: own ids, tagged routing, closer cancels, re-opened after a restart (SUB-12)', async (t) => {
  const { backend, waitForStatus } = createHarness(t, fixtureConfig('stdio-modern'))
  await backend.start()
  const kept = recordingSink()
  const dropped = recordingSink()
  const acks = [kept, dropped].map((sink) => sink.next((n) => n.method === 'notifications/subscriptions/acknowledged'))
  backend.listen?.({ toolsListChanged: true }, kept.sink)
  const closeDropped = backend.listen?.({ toolsListChanged: true }, dropped.sink)
  const [ackKept, ackDropped] = await Promise.all(acks)
  t.match(ackKept.params, { notifications: { toolsListChanged: true } })
  t.not(subscriptionIdOf(ackKept), subscriptionIdOf(ackDropped), 'each listen has its own upstream id')
  const changedBoth = [kept.next((n) => n.method === 'notifications/tools/list_changed'), dropped.next((n) => n.method === 'notifications/tools/list_changed')]
  await toolText(backend, 'notify-changed')
  const [changedKept, changedDropped] = await Promise.all(changedBoth)
  t.equal(subscriptionIdOf(changedKept), subscriptionIdOf(ackKept), 'delivered as received, tagged with its id')
  t.equal(subscriptionIdOf(changedDropped), subscriptionIdOf(ackDropped))
  closeDropped?.()
  const changedAgain = kept.next((n) => n.method === 'notifications/tools/list_changed')
  await toolText(backend, 'notify-changed')
  await changedAgain
  await toolText(backend, 'echo', { text: 'barrier' })
  t.equal(dropped.received.length, 2, 'nothing more after its closer ran')

  const reAck = kept.next((n) => n.method === 'notifications/subscriptions/acknowledged')
  await t.rejects(callTool(backend, 'crash'), { name: 'BackendError', reason: 'closed' })
  await waitForStatus((status) => status.up)
  t.not(subscriptionIdOf(await reAck), subscriptionIdOf(ackKept), 're-sent with a new id')
  const changedAfterRestart = kept.next((n) => n.method === 'notifications/tools/list_changed')
  await toolText(backend, 'notify-changed')
  await changedAfterRestart
  t.same(kept.closed, [])
  await backend.close()
  t.same(kept.closed, ['stdio backend "modern" closed'])
})

t.test('legacy listen: unsolicited list_changed → every sink that asked', async (t) => {
  const { backend } = createHarness(t, fixtureConfig('stdio-legacy'))
  await backend.start()
  const tools = recordingSink()
  const prompts = recordingSink()
  backend.listen?.({ toolsListChanged: true }, tools.sink)
  backend.listen?.({ promptsListChanged: true }, prompts.sink)
  const changed = tools.next((n) => n.method === 'notifications/tools/list_changed')
  await toolText(backend, 'notify-changed')
  t.same(await changed, { jsonrpc: '2.0', method: 'notifications/tools/list_changed' })
  t.same(prompts.received, [])
})

t.test('close() → no child process left', async (t) => {
  const { backend } = createHarness(t, fixtureConfig('stdio-modern'))
  await backend.start()
  const pid = Number(await toolText(backend, 'pid'))
  await backend.close()
  t.ok(isProcessGone(pid), `child ${pid} is gone`)
  t.same(backend.status(), { name: 'modern', transport: 'stdio', era: 'modern', up: false, reason: 'closed', protocolVersion: '2026-07-28' })
  await t.rejects(toolText(backend, 'echo', { text: 'x' }), { reason: 'closed', message: 'stdio backend "modern" is closed' })
  const sink = recordingSink()
  backend.listen?.({}, sink.sink)
  t.same(sink.closed, ['stdio backend "modern" closed'], 'a listen on a closed backend ends at once')
})

t.test('close() on a child that ignores stdin EOF and SIGTERM → SIGKILL (STDIO-8); bad stdout lines skipped (STDIO-2)', async (t) => {
  // 500 ms grace: long enough for the child to be scheduled and log each step on a loaded machine.
  const { backend, logs, waitForEvent } = createHarness(t, fixtureConfig('stdio-stubborn', { maxLineBytes: 1_024 }), { ...FAST, killGraceMs: 500 })
  const started = backend.start()
  const { pid } = await waitForEvent((event) => event.event === 'started')
  await deadline(logs.waitFor((record) => record.msg === 'stdio backend wrote a line that is not JSON; skipped'), 'the non-JSON line')
  await deadline(logs.waitFor((record) => record.msg === 'stdio backend wrote an oversized line; skipped'), 'the oversized line')
  await backend.close()
  await started
  t.ok(isProcessGone(pid as number), 'the stubborn child is gone')
  const events = logs.records.map(readStderrEvent).map((event) => event?.event).filter((event) => event !== undefined)
  t.same(events.slice(1), ['stdin-closed', 'sigterm-ignored'], 'stdin closed, then SIGTERM, then SIGKILL')
  t.ok(logs.records.some((record) => record.msg === 'stdio backend did not exit after SIGTERM; sending SIGKILL'))
})

t.test('a command that cannot be spawned → down with the reason, restarted with backoff', async (t) => {
  const { backend, waitForStatus } = createHarness(t, fixtureConfig('stdio-modern', { command: '/nonexistent/mcp-server' }))
  const second = waitForStatus((status) => /restarting in 40 ms$/.test(status.reason ?? ''))
  await backend.start()
  t.match(backend.status(), { up: false, era: 'unknown', reason: /^child could not be started: spawn \/nonexistent\/mcp-server ENOENT; restarting in 20 ms$/ })
  await t.rejects(callTool(backend, 'echo', { text: 'x' }), { reason: 'unreachable', message: /^stdio backend "modern" is down: child could not be started/ })
  await second
})

t.test('a child that never answers → discover and initialize time out → down, retired, restarted', async (t) => {
  const { backend, waitForStatus, waitForEvent } = createHarness(t, scriptedConfig({}), { ...FAST, probeTimeoutMs: 50 })
  const restarted = waitForStatus((status) => /restarting in 40 ms$/.test(status.reason ?? ''))
  await backend.start()
  t.match(backend.status(), { up: false, era: 'legacy', reason: 'initialize: no answer within 50 ms; restarting in 20 ms' })
  await waitForEvent((event) => event.method === 'initialize')
  await restarted
})

t.test('initialize refused → down with the backend\'s reason', async (t) => {
  const script = { 'server/discover': { error: { code: -32_000, message: 'Not initialized' } }, initialize: { error: { code: -32_603, message: 'no thanks' } } }
  const { backend } = createHarness(t, scriptedConfig(script))
  await backend.start()
  t.match(backend.status(), { up: false, era: 'legacy', reason: /^initialize failed: no thanks \(-32603\); restarting in \d+ ms$/ })
})

t.test('a modern child that sends a request → ignored (STDIO-4); stray and invalid messages → skipped', async (t) => {
  const discover = { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: {}, ttlMs: 0, cacheScope: 'private' }
  const script = {
    'server/discover': { result: discover },
    'tools/call': { request: { id: 's1', method: 'ping' }, result: { content: [] } },
  }
  const preamble = [{ jsonrpc: '2.0', id: 'nobody', result: {} }, { jsonrpc: '2.0', surprise: true }]
  const { backend, logs } = createHarness(t, scriptedConfig(script, preamble))
  await backend.start()
  t.match(backend.status(), { up: true, era: 'modern' })
  t.match(await callTool(backend, 'anything'), { ok: true, result: { content: [] } })
  const messages = logs.records.map((record) => record.msg)
  t.ok(messages.includes('modern stdio backend sent a request; ignored'))
  t.ok(messages.includes('stdio backend response for no pending request; ignored'), 'a response nobody waits for → ignored (CANCEL-6)')
  t.ok(messages.includes('stdio backend wrote an invalid JSON-RPC message; skipped'), 'not JSON-RPC → skipped (STDIO-2)')
})

t.test('two backends in one process do not interfere', async (t) => {
  const a = createHarness(t, fixtureConfig('stdio-modern', { name: 'a' }))
  const b = createHarness(t, fixtureConfig('stdio-modern', { name: 'b' }))
  await Promise.all([a.backend.start(), b.backend.start()])
  const [pidA, pidB] = await Promise.all([toolText(a.backend, 'pid'), toolText(b.backend, 'pid')])
  t.not(pidA, pidB)
  await a.backend.close()
  t.equal(await toolText(b.backend, 'echo', { text: 'b lives' }), 'b lives')
})

t.test('the gateway process is SIGKILLed → its stdio child exits too (stdin EOF)', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'stdio-orphan-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const fifo = join(dir, 'alive')
  execFileSync('mkfifo', [fifo])
  // The child holds the FIFO's only write end: EOF here means the child's files are closed, i.e. it died.
  const alive = createReadStream(fifo)
  alive.resume()
  const childGone = once(alive, 'end')
  const parent = spawn(process.execPath, [new URL('stdio-parent.ts', FIXTURES).pathname, fifo], { stdio: ['ignore', 'pipe', 'inherit'] })
  t.teardown(() => { parent.kill('SIGKILL') })
  const [line] = (await deadline(once(createInterface({ input: parent.stdout }), 'line'), 'the parent\'s report')) as [string]
  const { childPid } = JSON.parse(line) as { childPid: number }
  t.ok(Number.isInteger(childPid) && !isProcessGone(childPid), 'the child runs')
  parent.kill('SIGKILL')
  await deadline(once(parent, 'exit'), 'the parent to die')
  await deadline(childGone, 'the child to exit')
  t.ok(isProcessGone(childPid), `child ${childPid} exited after its parent was killed`)
})
