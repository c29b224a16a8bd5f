import { mock } from 'node:test'
import t from 'tap'
import { pino } from 'pino'
import type { JsonObject, JsonRpcNotification } from '../../../../src/protocol/jsonrpc.ts'
import { BackendError } from '../../../../src/upstream/backend.ts'
import { createCallRouter, describeAbortReason } from '../../../../src/upstream/stdio/stdio-calls.ts'
import { createIdAllocator } from '../../../../src/upstream/stdio/stdio-ids.ts'
import { createFakeSession } from '../../../helpers/stdio-fake-session.ts'

const logger = pino({ level: 'silent' })

function setup(timeoutMs = 60_000) {
  const router = createCallRouter({ backend: 'fx', timeoutMs, ids: createIdAllocator('gw'), logger })
  return { router, fake: createFakeSession() }
}

function callParams(meta: JsonObject = {}): JsonObject {
  return { name: 'tool', arguments: {}, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', ...meta } }
}

function progress(token: string, value: number): JsonRpcNotification {
  return { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: value } }
}

t.test('replies → resolved or rejected by kind', async (t) => {
  const cases = [
    { name: 'result → ok', reply: { ok: true, result: { a: 1 } } as const, resolves: { ok: true, result: { a: 1 } } },
    { name: 'JSON-RPC error → ok:false, passed through', reply: { ok: false, error: { code: -32602, message: 'bad' } } as const, resolves: { ok: false, error: { code: -32602, message: 'bad' } } },
    { name: 'invalid → bad_reply', reply: { ok: 'invalid', detail: 'result is not an object' } as const, rejects: { reason: 'bad_reply', message: /"fx" sent an invalid response/ } },
    { name: 'child gone → closed, naming the backend', reply: { ok: 'gone', detail: 'exited with code 1' } as const, rejects: { reason: 'closed', message: 'stdio backend "fx" exited with code 1 while the call was in flight' } },
  ]
  for (const entry of cases) {
    const { router, fake } = setup()
    const pending = router.start(fake.session, { method: 'tools/call', params: callParams(), signal: new AbortController().signal })
    t.equal(router.size, 1, `${entry.name} (tracked)`)
    fake.reply(fake.lastRequest().id, entry.reply)
    if (entry.resolves !== undefined) t.same(await pending, entry.resolves, entry.name)
    else await t.rejects(pending, { name: 'BackendError', backend: 'fx', ...entry.rejects }, entry.name)
    t.equal(router.size, 0, `${entry.name} (untracked)`)
  }
})

t.test('colliding client tokens → distinct gateway tokens, each caller gets its own progress (PROG-7, RPC-2)', async (t) => {
  const { router, fake } = setup()
  const seen: Array<JsonRpcNotification[]> = [[], []]
  const calls = [0, 1].map((index) => router.start(fake.session, {
    method: 'tools/call', params: callParams({ progressToken: 1 }), signal: new AbortController().signal,
    onNotification: (notification) => seen[index].push(notification),
  }))
  const requests = fake.written.filter((entry) => entry.kind === 'request')
  const tokens = requests.map((entry) => (entry.params._meta as JsonObject).progressToken as string)
  t.not(requests[0].id, requests[1].id)
  t.not(tokens[0], tokens[1])
  t.ok(router.routeProgress(progress(tokens[1], 5)))
  t.ok(router.routeProgress(progress(tokens[0], 3)))
  t.notOk(router.routeProgress(progress('unknown', 1)), 'unknown token → dropped')
  t.notOk(router.routeProgress({ jsonrpc: '2.0', method: 'notifications/progress' }), 'no params → dropped')
  t.same(seen[0], [{ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 3 } }])
  t.same(seen[1], [{ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 5 } }])
  fake.reply(requests[0].id, { ok: true, result: {} })
  await calls[0]
  t.notOk(router.routeProgress(progress(tokens[0], 4)), 'progress after the result → dropped (PROG-3)')
  fake.reply(requests[1].id, { ok: true, result: {} })
  await calls[1]
})

t.test('abort → notifications/cancelled with the gateway id, rejected, late reply ignored (CANCEL-3, CANCEL-6)', async (t) => {
  const { router, fake } = setup()
  const controller = new AbortController()
  const pending = router.start(fake.session, { method: 'tools/call', params: callParams(), signal: controller.signal })
  const { id } = fake.lastRequest()
  controller.abort('client went away')
  await t.rejects(pending, { reason: 'aborted', message: 'call to stdio backend "fx" was cancelled: client went away' })
  t.same(fake.written.at(-1), { kind: 'notify', method: 'notifications/cancelled', params: { requestId: id, reason: 'client went away' } })
  t.notOk(fake.reply(id, { ok: true, result: {} }), 'nothing waits for the late response')
})

t.test('already aborted → rejected, nothing written', async (t) => {
  const { router, fake } = setup()
  const controller = new AbortController()
  controller.abort()
  await t.rejects(router.start(fake.session, { method: 'tools/call', params: callParams(), signal: controller.signal }), { name: 'BackendError', reason: 'aborted' })
  t.same(fake.written, [])
})

t.test('timeout → cancelled upstream, rejected with reason timeout (CANCEL-8)', async (t) => {
  mock.timers.enable({ apis: ['setTimeout'] })
  t.teardown(() => mock.timers.reset())
  const { router, fake } = setup(1_000)
  const pending = router.start(fake.session, { method: 'tools/call', params: callParams(), signal: new AbortController().signal })
  const { id } = fake.lastRequest()
  mock.timers.tick(999)
  t.equal(router.size, 1, 'still waiting at 999 ms')
  mock.timers.tick(1)
  await t.rejects(pending, { reason: 'timeout', message: 'call to stdio backend "fx" timed out: no answer within 1000 ms' })
  t.match(fake.written.at(-1), { kind: 'notify', method: 'notifications/cancelled', params: { requestId: id } })
})

t.test('failAll → every call rejected with that error', async (t) => {
  const { router, fake } = setup()
  const calls = [1, 2].map(() => router.start(fake.session, { method: 'tools/call', params: callParams(), signal: new AbortController().signal }))
  router.failAll(new BackendError('fx', 'closed', 'stdio backend "fx" is shutting down'))
  for (const call of calls) await t.rejects(call, { reason: 'closed', message: 'stdio backend "fx" is shutting down' })
  t.equal(fake.pending.size, 0, 'the session no longer waits for them')
})

t.test('logs: delivered only when unambiguous', async (t) => {
  const log: JsonRpcNotification = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } }
  const cases = [
    { name: 'modern, one call with logLevel among others → that call', era: 'modern', metas: [{ 'io.modelcontextprotocol/logLevel': 'info' }, {}], delivered: [1, 0] },
    { name: 'modern, two calls with logLevel → dropped', era: 'modern', metas: [{ 'io.modelcontextprotocol/logLevel': 'info' }, { 'io.modelcontextprotocol/logLevel': 'debug' }], delivered: [0, 0] },
    { name: 'modern, no call with logLevel → dropped (LOG-2)', era: 'modern', metas: [{}], delivered: [0] },
    { name: 'legacy, the only call, with logLevel → that call', era: 'legacy', metas: [{ 'io.modelcontextprotocol/logLevel': 'info' }], delivered: [1] },
    { name: 'legacy, two calls in flight → dropped', era: 'legacy', metas: [{ 'io.modelcontextprotocol/logLevel': 'info' }, {}], delivered: [0, 0] },
    { name: 'legacy, the only call, no logLevel → dropped', era: 'legacy', metas: [{}], delivered: [0] },
  ] as const
  for (const entry of cases) {
    const { router, fake } = setup()
    const counts = entry.metas.map(() => 0)
    const calls = entry.metas.map((meta, index) => router.start(fake.session, {
      method: 'tools/call', params: callParams(meta), signal: new AbortController().signal, onNotification: () => { counts[index]++ },
    }))
    t.equal(router.routeLog(log, entry.era), entry.delivered.some((count) => count > 0), `${entry.name} (routed)`)
    t.same(counts, entry.delivered, entry.name)
    router.failAll(new BackendError('fx', 'closed', 'done'))
    await Promise.allSettled(calls)
  }
})

t.test('describeAbortReason', async (t) => {
  t.equal(describeAbortReason('gone'), 'gone')
  t.equal(describeAbortReason(new Error('client disconnected')), 'client disconnected')
  t.equal(describeAbortReason(new DOMException('This operation was aborted', 'AbortError')), 'the client cancelled the request')
  t.equal(describeAbortReason(undefined), 'the client cancelled the request')
})
