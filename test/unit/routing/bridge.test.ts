// MRTR bridging (G8, LEGACY-C5): a legacy backend's mid-call request becomes an input round; the
// client's retry answers it and resumes the held call; abandoned holds cancel the upstream call.
import { mock } from 'node:test'
import t from 'tap'
import { pino } from 'pino'
import type { JsonObject, JsonRpcNotification } from '../../../src/protocol/jsonrpc.ts'
import { Bridge, type Attachment, type BridgeHooks, type Round } from '../../../src/routing/bridge.ts'
import { BackendError, type ServerAnswer, type ServerRequest, type UpstreamReply } from '../../../src/upstream/backend.ts'

const logger = pino({ level: 'silent' })
const HOLD_MS = 60_000
const ALL_CAPABILITIES: JsonObject = { elicitation: { form: {}, url: {} }, sampling: { tools: {} }, roots: {} }
const STATE_INVALID = { name: 'GatewayError', code: 'MCP_GATEWAY_STATE_INVALID', rpcCode: -32602 }
const PARAMS_INVALID = { name: 'GatewayError', code: 'MCP_GATEWAY_PARAMS_INVALID', rpcCode: -32602 }

const ELICIT: ServerRequest = { method: 'elicitation/create', params: { message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } } }
const SAMPLE: ServerRequest = { method: 'sampling/createMessage', params: { messages: [], maxTokens: 10 } }
const ROOTS: ServerRequest = { method: 'roots/list' }
const FINAL: UpstreamReply = { ok: true, result: { content: [{ type: 'text', text: 'done' }] } }

// The upstream call, driven by hand: the test answers it, and asks through its hooks.
interface FakeCall {
  run: (hooks: BridgeHooks) => Promise<UpstreamReply>
  // Resolves once the bridge has started the call.
  started: Promise<BridgeHooks>
  hooks(): BridgeHooks
  reply(reply: UpstreamReply): void
  fail(error: unknown): void
  ask(request: ServerRequest): Promise<ServerAnswer>
}

// Like a real backend, the call rejects when its signal aborts.
function createCall(): FakeCall {
  let hooks: BridgeHooks | undefined
  let onStart!: (hooks: BridgeHooks) => void
  let settle!: { resolve: (reply: UpstreamReply) => void; reject: (error: unknown) => void }
  const started = new Promise<BridgeHooks>((resolve) => { onStart = resolve })
  const current = (): BridgeHooks => {
    if (hooks === undefined) throw new Error('the bridge has not started the call')
    return hooks
  }
  return {
    run(given) {
      hooks = given
      onStart(given)
      return new Promise<UpstreamReply>((resolve, reject) => {
        settle = { resolve, reject }
        given.signal.addEventListener('abort', () => reject(new BackendError('fx', 'aborted', `cancelled: ${String(given.signal.reason)}`)), { once: true })
      })
    },
    started,
    hooks: current,
    reply: (reply) => settle.resolve(reply),
    fail: (error) => settle.reject(error),
    ask: (request) => current().onServerRequest(request),
  }
}

interface FakeClient extends Attachment {
  controller: AbortController
  seen: JsonRpcNotification[]
}

function createClient(clientCapabilities: JsonObject = ALL_CAPABILITIES, progressToken?: string): FakeClient {
  const controller = new AbortController()
  const seen: JsonRpcNotification[] = []
  return { controller, seen, signal: controller.signal, onNotification: (n) => { seen.push(n) }, clientCapabilities, progressToken }
}

function createBridge(): Bridge {
  return new Bridge({ holdMs: HOLD_MS, logger })
}

type InputRound = Extract<Round, { kind: 'input' }>

function asInput(t: { fail(message: string): void }, round: Round): InputRound {
  if (round.kind !== 'input') {
    t.fail(`expected an input round, got ${JSON.stringify(round)}`)
    throw new Error('not an input round')
  }
  return round
}

// Opens a call and has the backend ask `requests` (in parallel): the first input round.
async function openAsking(bridge: Bridge, requests: ServerRequest[], client = createClient()) {
  const call = createCall()
  const opened = bridge.open(call.run, client, { backend: 'fx', rpcMethod: 'tools/call' })
  await call.started
  const answers = requests.map((request) => call.ask(request))
  return { call, opened, answers, client }
}

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}

// Whether a promise has settled by the next turn of the event loop.
async function settledSoon<T>(promise: Promise<T>): Promise<{ value: T } | 'pending'> {
  return Promise.race([promise.then((value) => ({ value })), nextTurn().then(() => 'pending' as const)])
}

t.test('backend never asks → open settles with its outcome', async (t) => {
  const cases: Array<{ name: string; settle: (call: FakeCall) => void; reply?: UpstreamReply; rejects?: { name: string; reason: string; message: string } }> = [
    { name: 'result', settle: (call) => call.reply(FINAL), reply: FINAL },
    { name: 'JSON-RPC error (passed through)', settle: (call) => call.reply({ ok: false, error: { code: -32000, message: 'nope' } }), reply: { ok: false, error: { code: -32000, message: 'nope' } } },
    { name: 'transport failure', settle: (call) => call.fail(new BackendError('fx', 'closed', 'child died')), rejects: { name: 'BackendError', reason: 'closed', message: 'child died' } },
  ]
  for (const entry of cases) {
    const bridge = createBridge()
    const call = createCall()
    const opened = bridge.open(call.run, createClient(), {})
    await call.started
    entry.settle(call)
    if (entry.reply !== undefined) t.same(await opened, { kind: 'reply', reply: entry.reply }, `${entry.name} → reply round`)
    else await t.rejects(opened, entry.rejects!, `${entry.name} → rejects with it`)
  }
})

t.test('backend asks → input round with gateway-chosen keys and the request method and params', async (t) => {
  const cases: Array<{ name: string; requests: ServerRequest[]; inputRequests: JsonObject }> = [
    { name: 'elicitation/create with params', requests: [ELICIT], inputRequests: { 'input-1': { method: ELICIT.method, params: ELICIT.params } } },
    { name: 'roots/list without params', requests: [ROOTS], inputRequests: { 'input-1': { method: 'roots/list' } } },
    { name: 'sampling and elicitation in parallel', requests: [SAMPLE, ELICIT], inputRequests: { 'input-1': { method: SAMPLE.method, params: SAMPLE.params }, 'input-2': { method: ELICIT.method, params: ELICIT.params } } },
  ]
  for (const entry of cases) {
    const { opened } = await openAsking(createBridge(), entry.requests)
    const round = asInput(t, await opened)
    t.same(round.inputRequests, entry.inputRequests, `${entry.name} → ${Object.keys(entry.inputRequests).join(', ')}`)
    t.equal(round.handle.round, 1, `${entry.name} → round 1`)
    t.match(round.handle.id, /^[A-Za-z0-9_-]{24}$/, `${entry.name} → a random base64url call id`)
  }
})

t.test('resume with the answers → backend gets them; a second ask → round 2; then the final reply', async (t) => {
  const bridge = createBridge()
  const { call, opened, answers } = await openAsking(bridge, [ELICIT])
  const first = asInput(t, await opened)
  const accepted = { action: 'accept', content: { name: 'Ada' } }
  const second = bridge.resume(first.handle, createClient(), { 'input-1': accepted, unrelated: { ignored: true } })
  t.same(await answers[0], { result: accepted }, 'inputResponses["input-1"] → the answer to the backend\'s request')
  const rootsAnswer = call.ask(ROOTS)
  const round2 = asInput(t, await second)
  t.same(round2, { kind: 'input', handle: { id: first.handle.id, round: 2 }, inputRequests: { 'input-2': { method: 'roots/list' } } }, 'second ask → round 2 of the same call, next key')
  const third = bridge.resume(round2.handle, createClient(), { 'input-2': { roots: [] } })
  t.same(await rootsAnswer, { result: { roots: [] } }, 'round 2 answer → delivered')
  call.reply(FINAL)
  t.same(await third, { kind: 'reply', reply: FINAL }, 'backend replies → the retry resolves with the reply')
  await t.rejects(bridge.resume(round2.handle, createClient(), {}), STATE_INVALID, 'call finished → its handle no longer resumes')
})

t.test('backend finishes between rounds → the retry gets its reply', async (t) => {
  const bridge = createBridge()
  const { call, opened } = await openAsking(bridge, [ELICIT])
  const round = asInput(t, await opened)
  call.reply(FINAL)
  await nextTurn()
  t.same(await bridge.resume(round.handle, createClient(), {}), { kind: 'reply', reply: FINAL })
})

t.test('resume that names no waiting call → -32602 GatewayError', async (t) => {
  const bridge = createBridge()
  const { call, opened } = await openAsking(bridge, [ELICIT])
  const round1 = asInput(t, await opened)
  const retry = bridge.resume(round1.handle, createClient(), {})
  await t.rejects(bridge.resume(round1.handle, createClient(), {}), STATE_INVALID, 'while a retry is attached → rejected')
  const round2 = asInput(t, await retry)
  const cases: Array<{ name: string; handle: { id: string; round: number } }> = [
    { name: 'stale round (1 after round 2 was issued)', handle: round1.handle },
    { name: 'future round', handle: { id: round2.handle.id, round: 3 } },
    { name: 'unknown id', handle: { id: 'no-such-call', round: 2 } },
  ]
  for (const entry of cases) await t.rejects(bridge.resume(entry.handle, createClient(), {}), STATE_INVALID, `${entry.name} → rejected`)
  const last = bridge.resume(round2.handle, createClient(), { 'input-1': { action: 'decline' } })
  call.reply(FINAL)
  t.same(await last, { kind: 'reply', reply: FINAL }, 'rejected retries → the current handle still resumes')
})

t.test('missing or malformed answers', async (t) => {
  const bridge = createBridge()
  const { call, opened, answers } = await openAsking(bridge, [ELICIT, ROOTS])
  const round1 = asInput(t, await opened)
  const cases: Array<{ name: string; inputResponses: unknown }> = [
    { name: 'inputResponses not an object', inputResponses: ['x'] },
    { name: 'one entry not an object (the other valid)', inputResponses: { 'input-1': { action: 'accept' }, 'input-2': 'roots' } },
  ]
  for (const entry of cases) await t.rejects(bridge.resume(round1.handle, createClient(), entry.inputResponses), PARAMS_INVALID, `${entry.name} → -32602 invalid params`)
  t.same(await settledSoon(answers[0]), 'pending', 'malformed retry → nothing delivered, not even the valid entry')
  const retry = bridge.resume(round1.handle, createClient(), { 'input-1': { action: 'accept' } })
  t.same(await answers[0], { result: { action: 'accept' } }, 'answered entry → delivered')
  const round2 = asInput(t, await retry)
  t.same(round2.inputRequests, { 'input-2': { method: 'roots/list' } }, 'unanswered entry → asked again under the same key')
  t.equal(round2.handle.round, 2, 'asked again → a new round')
  const final = bridge.resume(round2.handle, createClient(), { 'input-2': { roots: [] } })
  t.same(await answers[1], { result: { roots: [] } }, 'answered in round 2 → delivered')
  call.reply(FINAL)
  t.same(await final, { kind: 'reply', reply: FINAL })
})

t.test('request the client did not declare a capability for → refused to the backend at once, no round', async (t) => {
  const cases: Array<{ name: string; capabilities: JsonObject; request: ServerRequest }> = [
    { name: 'sampling without sampling', capabilities: { elicitation: {} }, request: SAMPLE },
    { name: 'roots/list without roots', capabilities: {}, request: ROOTS },
    { name: 'url elicitation with elicitation: {} (form only)', capabilities: { elicitation: {} }, request: { method: 'elicitation/create', params: { mode: 'url', url: 'https://x.invalid', message: 'go' } } },
    { name: 'sampling with tools without sampling.tools', capabilities: { sampling: {} }, request: { method: 'sampling/createMessage', params: { messages: [], tools: [] } } },
    { name: 'an unknown method', capabilities: ALL_CAPABILITIES, request: { method: 'ping' } },
  ]
  for (const entry of cases) {
    const { call, opened, answers } = await openAsking(createBridge(), [entry.request], createClient(entry.capabilities))
    t.match(await answers[0], { error: { code: -32601, message: new RegExp(`^${entry.request.method} refused: `) } }, `${entry.name} → -32601 to the backend`)
    call.reply(FINAL)
    t.same(await opened, { kind: 'reply', reply: FINAL }, `${entry.name} → no input round; the client gets the reply`)
  }
})

t.test('client signal aborts while attached → upstream cancelled; aborts while detached → ignored', async (t) => {
  const cases: Array<{ name: string; during: 'open' | 'resume' | 'already' }> = [
    { name: 'first request aborted', during: 'open' },
    { name: 'retry aborted', during: 'resume' },
    { name: 'retry already aborted when it resumes', during: 'already' },
  ]
  for (const entry of cases) {
    const bridge = createBridge()
    const call = createCall()
    const first = createClient()
    const opened = bridge.open(call.run, first, {})
    const hooks = await call.started
    let pending: Promise<Round> = opened
    let driver = first
    if (entry.during !== 'open') {
      void call.ask(ELICIT)
      const round = asInput(t, await opened)
      first.controller.abort('first request ended')
      t.notOk(hooks.signal.aborted, `${entry.name}: the first request's signal aborting after its round → upstream untouched`)
      driver = createClient()
      if (entry.during === 'already') driver.controller.abort('client gone')
      pending = bridge.resume(round.handle, driver, {})
    }
    if (entry.during !== 'already') driver.controller.abort('client gone')
    t.ok(hooks.signal.aborted, `${entry.name} → upstream signal aborted`)
    t.equal(hooks.signal.reason, 'client gone', `${entry.name} → with the client's reason`)
    await t.rejects(pending, { name: 'BackendError', reason: 'aborted' }, `${entry.name} → the request settles with the backend's outcome`)
    t.same(await call.ask(ROOTS), { error: { code: -32601, message: 'roots/list: the call is over' } }, `${entry.name} → later asks refused`)
  }
})

t.test('notifications → relayed while attached (progress re-tagged), dropped between rounds', async (t) => {
  const bridge = createBridge()
  const first = createClient(ALL_CAPABILITIES, 'first-token')
  const { call, opened } = await openAsking(bridge, [], first)
  const progress = (value: number): JsonRpcNotification => ({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'gw-1', progress: value } })
  const log: JsonRpcNotification = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } }
  call.hooks().onNotification(progress(1))
  call.hooks().onNotification(log)
  void call.ask(ELICIT)
  const round = asInput(t, await opened)
  call.hooks().onNotification(progress(2))
  const retry = createClient(ALL_CAPABILITIES, 'retry-token')
  const resumed = bridge.resume(round.handle, retry, { 'input-1': { action: 'accept' } })
  call.hooks().onNotification(progress(3))
  call.reply(FINAL)
  await resumed
  t.same(first.seen, [{ ...progress(1), params: { progressToken: 'first-token', progress: 1 } }, log], 'first request → its progress token; other notifications unchanged')
  t.same(retry.seen, [{ ...progress(3), params: { progressToken: 'retry-token', progress: 3 } }], 'retry → its own token; the between-rounds progress dropped')
})

t.test('hold never resumed → times out after holdMs, upstream cancelled, later resume fails', async (t) => {
  mock.timers.enable({ apis: ['setTimeout'] })
  t.teardown(() => mock.timers.reset())
  const bridge = createBridge()
  const { call, opened } = await openAsking(bridge, [ELICIT])
  const round = asInput(t, await opened)
  const hooks = call.hooks()
  mock.timers.tick(HOLD_MS - 1)
  t.notOk(hooks.signal.aborted, `${HOLD_MS - 1} ms → still held`)
  mock.timers.tick(1)
  t.ok(hooks.signal.aborted, `${HOLD_MS} ms → upstream cancelled`)
  t.equal(hooks.signal.reason, `the client did not retry within ${HOLD_MS} ms`, 'cancelled with the reason')
  await t.rejects(bridge.resume(round.handle, createClient(), { 'input-1': { action: 'accept' } }), STATE_INVALID, 'resume after the hold ended → -32602')
})

t.test('resume before the hold ends → timer cleared while attached, re-armed for the next round', async (t) => {
  mock.timers.enable({ apis: ['setTimeout'] })
  t.teardown(() => mock.timers.reset())
  const bridge = createBridge()
  const { call, opened } = await openAsking(bridge, [ELICIT])
  const round1 = asInput(t, await opened)
  mock.timers.tick(HOLD_MS - 1)
  const retry = bridge.resume(round1.handle, createClient(), { 'input-1': { action: 'accept' } })
  mock.timers.tick(HOLD_MS * 2)
  t.notOk(call.hooks().signal.aborted, 'attached retry → no hold timeout')
  void call.ask(ROOTS)
  const round2 = asInput(t, await retry)
  mock.timers.tick(HOLD_MS - 1)
  t.notOk(call.hooks().signal.aborted, `round 2, ${HOLD_MS - 1} ms → still held`)
  mock.timers.tick(1)
  t.ok(call.hooks().signal.aborted, `round 2, ${HOLD_MS} ms → upstream cancelled`)
  await t.rejects(bridge.resume(round2.handle, createClient(), {}), STATE_INVALID)
})

t.test('call settles while a request is still unanswered → that request is refused, not left pending', async (t) => {
  const bridge = createBridge()
  const { call, opened, answers } = await openAsking(bridge, [ELICIT])
  asInput(t, await opened)
  call.reply(FINAL)
  const outcome = await settledSoon(answers[0])
  t.match(outcome, { value: { error: { code: -32601 } } }, 'pending ask → -32601 "the call is over"')
})

t.test('two bridges → independent registries', async (t) => {
  const a = createBridge()
  const b = createBridge()
  const { call, opened } = await openAsking(a, [ELICIT])
  const round = asInput(t, await opened)
  await t.rejects(b.resume(round.handle, createClient(), {}), STATE_INVALID, 'a handle of bridge A → unknown to bridge B')
  const resumed = a.resume(round.handle, createClient(), { 'input-1': { action: 'cancel' } })
  call.reply(FINAL)
  t.same(await resumed, { kind: 'reply', reply: FINAL }, 'and still resumes on A')
})

t.test('close() → held calls cancelled upstream, their handles no longer resume', async (t) => {
  const bridge = createBridge()
  const held = await openAsking(bridge, [ELICIT])
  const heldRound = asInput(t, await held.opened)
  const finished = await openAsking(bridge, [ROOTS])
  const finishedRound = asInput(t, await finished.opened)
  finished.call.reply(FINAL)
  await nextTurn()
  bridge.close()
  t.equal(held.call.hooks().signal.reason, 'gateway shutting down', 'held, still running → upstream cancelled')
  t.notOk(finished.call.hooks().signal.aborted, 'held, already settled → not aborted')
  for (const handle of [heldRound.handle, finishedRound.handle]) {
    await t.rejects(bridge.resume(handle, createClient(), {}), STATE_INVALID, `round ${handle.round} of ${handle.id} after close → -32602`)
  }
})

t.test('cancel(id) → the held call is cancelled upstream now with the reason; unknown ids ignored (LEGACY-16)', async (t) => {
  const bridge = createBridge()
  const { call, opened } = await openAsking(bridge, [ELICIT])
  const round = asInput(t, await opened)
  bridge.cancel('no-such-call', 'ignored')
  t.notOk(call.hooks().signal.aborted, 'an unknown id → nothing happens')
  bridge.cancel(round.handle.id, 'the client did not answer')
  t.equal(call.hooks().signal.reason, 'the client did not answer', 'upstream cancelled at once, with the reason')
  await t.rejects(bridge.resume(round.handle, createClient(), { 'input-1': { action: 'accept' } }), STATE_INVALID, 'its handle no longer resumes')
})
