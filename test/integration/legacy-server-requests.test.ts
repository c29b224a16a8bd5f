// Server-initiated requests to 2025-11-25 clients (LEGACY-16, LEGACY-C5, LEGACY-7/8/13): a modern backend's
// input_required becomes elicitation/create, sampling/createMessage and roots/list requests on the
// POST's SSE stream, round after round, and a legacy backend's own requests (bridged by the router)
// reach the client the same way; the client never sees input_required. Cancellation by
// notifications/cancelled, by disconnect and by an unanswered request reaches the backend.
// Real peers: the v1 SDK client, raw undici requests, the conformance fixture and an SDK v2 backend
// (modern, HTTP), the legacy stdio fixture and server-everything over stdio (2025-11-25).
import { createRequire } from 'node:module'
import t from 'tap'
import type { Test } from 'tap'
import { Agent, request } from 'undici'
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { startFixture } from '../helpers/backend-process.ts'
import { startGateway, type LogRecord, type StartedGateway } from '../helpers/start-gateway.ts'
import { createRawClient } from '../helpers/mcp-client.ts'
import { readStderrEvent } from '../helpers/stdio-log-capture.ts'
import { connectV1, openRawSession, sessionHeaders } from '../helpers/legacy-client.ts'

const BACKEND = new URL('../fixtures/sdk-http-backend.ts', import.meta.url).pathname
const CONFORMANCE = new URL('../fixtures/conformance-server.ts', import.meta.url).pathname
const LEGACY_FIXTURE = new URL('../fixtures/stdio-legacy.ts', import.meta.url).pathname
const EVERYTHING = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js')
const ALL_CAPABILITIES = { elicitation: {}, sampling: {}, roots: { listChanged: true } }
const ROOTS = { roots: [{ uri: 'file:///work', name: 'work' }] }
const SAMPLED = { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'test-model' }

const [alpha, conformance] = await Promise.all([
  startFixture(t, BACKEND, ['--name', 'alpha', '--extras']),
  startFixture(t, CONFORMANCE),
])
function backends(): Array<Record<string, unknown>> {
  return [
    { name: 'a', transport: 'http', url: alpha.url, namespace: 'a' },
    { name: 'cf', transport: 'http', url: conformance.url, namespace: 'cf' },
    { name: 'lg', transport: 'stdio', command: process.execPath, args: [LEGACY_FIXTURE], namespace: 'lg' },
    { name: 'ev', transport: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'], env: {}, namespace: 'ev' },
  ]
}
const gateway = await startGateway(t, { backends: backends() }, { logs: true, logLevel: 'debug' })
const raw = createRawClient(t, gateway.url)

function textOf(result: unknown): string {
  const content = ((result as { content?: unknown }).content ?? []) as Array<{ type: string; text?: string }>
  return content.filter((part) => part.type === 'text').map((part) => part.text).join('\n')
}

// Resolves with the next legacy fixture event (a JSON line on its stderr, logged by the gateway).
async function fixtureEvent(on: StartedGateway, predicate: (event: LogRecord) => boolean): Promise<LogRecord> {
  const record = await on.logs!.waitFor((entry) => {
    const event = readStderrEvent(entry)
    return event !== undefined && predicate(event)
  })
  return readStderrEvent(record)!
}

interface Asked {
  method: string
  params: any
}

// A v1 client that declares elicitation, sampling and roots and answers each the way given.
async function answeringClient(t: Test, url: string, answers: { elicit?: (params: any) => unknown; capabilities?: Record<string, unknown> } = {}) {
  const capabilities = answers.capabilities ?? ALL_CAPABILITIES
  const { client } = await connectV1(t, url, { capabilities })
  const asked: Asked[] = []
  // The v1 client accepts a handler only for a capability it declares.
  if ('elicitation' in capabilities) {
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push({ method: req.method, params: req.params })
      return (answers.elicit?.(req.params) ?? { action: 'accept', content: { name: 'Ada', color: 'green', username: 'ada', email: 'ada@example.com' } }) as never
    })
  }
  if ('sampling' in capabilities) {
    client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
      asked.push({ method: req.method, params: req.params })
      return SAMPLED as never
    })
  }
  if ('roots' in capabilities) {
    client.setRequestHandler(ListRootsRequestSchema, async (req) => {
      asked.push({ method: req.method, params: req.params })
      return ROOTS as never
    })
  }
  return { client, asked }
}

t.test('modern backend input_required → server requests to the v1 client, retried until complete', async (t) => {
  const { client, asked } = await answeringClient(t, gateway.url)
  const cases: Array<[string, string, string[]]> = [
    ['cf__test_input_required_result_elicitation', 'Hello, Ada!', ['elicitation/create']],
    ['cf__test_input_required_result_sampling', 'Sampling said: Paris', ['sampling/createMessage']],
    ['cf__test_input_required_result_list_roots', 'Roots: file:///work', ['roots/list']],
    ['cf__test_input_required_result_multiple_inputs', 'Every input answered.', ['elicitation/create', 'sampling/createMessage', 'roots/list']],
    ['cf__test_input_required_result_multi_round', 'Both rounds answered.', ['elicitation/create', 'elicitation/create']],
    ['cf__test_input_required_result_request_state', 'state-ok: the echoed requestState verified.', ['elicitation/create']],
  ]
  for (const [tool, text, methods] of cases) {
    asked.length = 0
    const result = await client.callTool({ name: tool, arguments: {} })
    t.equal(textOf(result), text, `${tool} → ${text}`)
    t.same(asked.map((a) => a.method).sort(), [...methods].sort(), `${tool}: the client was asked ${methods.join(', ')}`)
  }
})

t.test('modern backend requestState → back to the backend byte for byte (sealed in between)', async (t) => {
  const { client, asked } = await answeringClient(t, gateway.url)
  const result = await client.callTool({ name: 'a__ask-name', arguments: {} })
  const answer = JSON.parse(textOf(result))
  t.equal(answer.greeting, 'Hello, Ada!')
  t.equal(answer.requestState, 'ask-name.alpha:ü+/== "{\\"round\\":1}" ☃ end.', 'the backend got its own state back')
  t.match(asked, [{ method: 'elicitation/create', params: { message: 'What is your name?' } }])
  const calls = [await alpha.waitForEvent('called', (e) => e.requestState === null), await alpha.waitForEvent('called', (e) => typeof e.requestState === 'string')]
  t.equal(calls.length, 2, 'two rounds reached the backend')
})

t.test('legacy backend requests (bridged) → the v1 client answers them', async (t) => {
  const { client, asked } = await answeringClient(t, gateway.url)
  const cases: Array<[string, Record<string, unknown>, RegExp, string[]]> = [
    ['lg__ask-name', {}, /^hello Ada$/, ['elicitation/create']],
    ['lg__ask-twice', {}, /^Ada Ada$/, ['elicitation/create', 'elicitation/create']],
    ['lg__ask-roots', {}, /^answered$/, ['roots/list']],
    ['ev__trigger-sampling-request', { prompt: 'capital?', maxTokens: 10 }, /LLM sampling result:[\s\S]*Paris/, ['sampling/createMessage']],
    ['ev__trigger-elicitation-request', {}, /User provided the requested information/, ['elicitation/create']],
  ]
  for (const [tool, args, text, methods] of cases) {
    asked.length = 0
    const result = await client.callTool({ name: tool, arguments: args })
    t.match(textOf(result), text, `${tool} → ${text}`)
    t.same(asked.map((a) => a.method), methods, `${tool}: the client was asked ${methods.join(', ')}`)
  }
})

t.test('capabilities the client did not declare are never asked for', async (t) => {
  const { client, asked } = await answeringClient(t, gateway.url, { capabilities: { sampling: {} } })
  t.match(textOf(await client.callTool({ name: 'lg__ask-name', arguments: {} })), 'hello error -32601', 'legacy backend: refused with -32601')
  await t.rejects(client.callTool({ name: 'a__ask-name', arguments: {} }), { code: -32021 }, 'modern backend: refuses itself (-32021 passed through); the client is not asked')
  asked.length = 0
  const result = await client.callTool({ name: 'cf__test_input_required_result_capabilities', arguments: {} })
  t.same(asked.map((a) => a.method), ['sampling/createMessage'], 'only sampling asked for')
  t.ok(textOf(result).length > 0, 'completed')
})

t.test('raw: priming event first, then the request with a gateway id; the POSTed answer → 202; the result ends the stream', async (t) => {
  const { sessionId } = await openRawSession(raw, ALL_CAPABILITIES)
  const agent = new Agent()
  t.teardown(() => agent.destroy())
  const response = await request(gateway.url, {
    dispatcher: agent, method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...sessionHeaders(sessionId) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 'c1', method: 'tools/call', params: { name: 'cf__test_input_required_result_list_roots', arguments: {} } }),
  })
  t.match(response.headers['content-type'], /^text\/event-stream/)
  let text = ''
  const chunks = response.body.setEncoding('utf8')[Symbol.asyncIterator]()
  while (!text.includes('roots/list')) text += (await chunks.next()).value
  t.match(text, /^id: [A-Za-z0-9_-]+\.0\ndata:\n\n/, 'LEGACY-8: an event id and empty data first')
  const serverRequest = JSON.parse(/data: (\{.*\})\n\n/.exec(text)![1])
  t.match(serverRequest, { jsonrpc: '2.0', id: String, method: 'roots/list' })
  t.notOk('params' in serverRequest, 'roots/list carries no params')
  const posted = await raw.post({ jsonrpc: '2.0', id: serverRequest.id, result: ROOTS }, sessionHeaders(sessionId))
  t.equal(posted.status, 202)
  t.equal((await raw.post({ jsonrpc: '2.0', id: serverRequest.id, result: ROOTS }, sessionHeaders(sessionId))).status, 400, 'the same answer twice → 400')
  for (let chunk = await chunks.next(); !chunk.done; chunk = await chunks.next()) text += chunk.value
  const final = JSON.parse(text.trim().split('\n').filter((line) => line.startsWith('data: {')).at(-1)!.slice(6))
  t.same(final, { jsonrpc: '2.0', id: 'c1', result: { content: [{ type: 'text', text: 'Roots: file:///work' }], _meta: final.result._meta } })
  t.notOk(text.includes('input_required'), 'never input_required')
})

t.test('cancel: notifications/cancelled from the v1 client reaches a modern and a legacy backend', async (t) => {
  const { client } = await connectV1(t, gateway.url)
  const modern = new AbortController()
  const modernCall = client.callTool({ name: 'a__hang', arguments: {} }, undefined, { signal: modern.signal }).catch((err: unknown) => err)
  await alpha.waitForEvent('started', (e) => e.tool === 'hang')
  modern.abort('user pressed stop')
  t.ok(await alpha.waitForEvent('aborted', (e) => e.tool === 'hang'), 'the modern backend saw its call aborted')
  t.match(await modernCall, { message: /user pressed stop/ }, 'the client gave up on its own')
  const legacy = new AbortController()
  const legacyCall = client.callTool({ name: 'lg__hang', arguments: {} }, undefined, { signal: legacy.signal }).catch((err: unknown) => err)
  const hanging = await fixtureEvent(gateway, (e) => e.event === 'hanging')
  legacy.abort('user pressed stop')
  const cancelled = await fixtureEvent(gateway, (e) => e.event === 'cancelled' && e.requestId === hanging.requestId)
  t.ok(cancelled, 'the legacy backend saw notifications/cancelled for that call')
  await legacyCall
  t.ok(await gateway.logs!.waitFor((r) => r.msg === 'legacy call cancelled' && r.reason === 'user pressed stop'), 'the reason is logged (CANCEL-9)')
})

t.test('cancel while the gateway waits for the client\'s answer → the held legacy call is cancelled', async (t) => {
  let release: () => void = () => {}
  let onAsked: () => void = () => {}
  const asked = new Promise<void>((resolve) => { onAsked = resolve })
  const { client } = await answeringClient(t, gateway.url, {
    elicit: () => {
      onAsked()
      return new Promise((resolve) => { release = () => resolve({ action: 'cancel' }) })
    },
  })
  t.teardown(() => release())
  const controller = new AbortController()
  const call = client.callTool({ name: 'lg__ask-name', arguments: {} }, undefined, { signal: controller.signal }).catch((err: unknown) => err)
  await asked
  controller.abort('changed my mind')
  // The fixture records a cancelled call only when its signal aborts: this call's, held by the bridge.
  t.ok(await fixtureEvent(gateway, (e) => e.event === 'cancelled'), 'the legacy backend saw the cancel at once, not at the end of the hold')
  t.match(await call, { message: /changed my mind/ })
  release()
  const late = await gateway.logs!.waitFor((r) => r.msg === 'mcp request' && r.rpcMethod === 'response' && r.status !== 202)
  t.equal(late.status, 400, 'the client\'s late answer → 400: nobody waits for it any more')
})

t.test('disconnect mid-call → the upstream call is cancelled', async (t) => {
  const { sessionId } = await openRawSession(raw)
  const agent = new Agent()
  t.teardown(() => agent.destroy())
  const controller = new AbortController()
  const pending = request(gateway.url, {
    dispatcher: agent, method: 'POST', signal: controller.signal,
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...sessionHeaders(sessionId) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 'h1', method: 'tools/call', params: { name: 'lg__hang', arguments: {} } }),
  }).catch((err: unknown) => err)
  const hanging = await fixtureEvent(gateway, (e) => e.event === 'hanging')
  controller.abort()
  await pending
  t.ok(await fixtureEvent(gateway, (e) => e.event === 'cancelled' && e.requestId === hanging.requestId), 'the backend saw notifications/cancelled')
})

t.test('a client that never answers → bounded wait, upstream cancelled, a clear error, the request cancelled toward the client', async (t) => {
  const short = await startGateway(t, { clientAnswerTimeoutMs: 300, backends: backends().filter((b) => b.name !== 'ev') }, { logs: true, logLevel: 'debug' })
  const { client } = await connectV1(t, short.url, { capabilities: ALL_CAPABILITIES })
  const cancelledRequests: string[] = []
  client.setRequestHandler(ElicitRequestSchema, (_req, extra) => new Promise((resolve) => {
    extra.signal.addEventListener('abort', () => {
      cancelledRequests.push(String(extra.signal.reason))
      resolve({ action: 'cancel' })
    })
  }))
  const legacyCall = client.callTool({ name: 'lg__ask-name', arguments: {} })
  const asking = await fixtureEvent(short, (e) => e.event === 'asking')
  await t.rejects(legacyCall, { code: -32603, message: /did not answer[\s\S]*elicitation\/create not answered within 300 ms/ })
  t.ok(await fixtureEvent(short, (e) => e.event === 'cancelled' && e.requestId === asking.requestId), 'legacy backend: its call cancelled')
  await t.rejects(client.callTool({ name: 'cf__test_input_required_result_elicitation', arguments: {} }), { code: -32603 }, 'modern backend: the same error')
  t.equal(cancelledRequests.length, 2, 'the client got notifications/cancelled for both server requests (LEGACY-13)')
})
