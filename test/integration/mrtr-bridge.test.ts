// MRTR bridging (G8 "Legacy backends (bridging)", LEGACY-C5, MRTR-2..5/8/9/10): a 2025-11-25
// backend's elicitation/create or roots/list sent mid-call reaches a 2026-07-28 client as an
// input_required result; the retry's inputResponses go back to the waiting backend request. Real
// peers: the legacy stdio fixture, the published server-everything over stdio and over HTTP, the
// SDK v2 client pinned to 2026-07-28, and raw undici requests for the wire-level cases.
import { createRequire } from 'node:module'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import type { CallToolResult } from '@modelcontextprotocol/client'
import t from 'tap'
import type { Test } from 'tap'
import { startEverythingHttp } from '../helpers/everything-http.ts'
import { createRawClient, META, PROTOCOL_VERSION, type RawMcpClient, type RawReply } from '../helpers/mcp-client.ts'
import { startGateway, type LogRecord, type StartedGateway } from '../helpers/start-gateway.ts'
import { readStderrEvent } from '../helpers/stdio-log-capture.ts'

const LEGACY_FIXTURE = new URL('../fixtures/stdio-legacy.ts', import.meta.url).pathname
const EVERYTHING = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js')
const ELICITATION = { [META.clientCapabilities]: { elicitation: {} } }

function legacyStdio(name: string, namespace = ''): Record<string, unknown> {
  return { name, transport: 'stdio', command: process.execPath, args: [LEGACY_FIXTURE], namespace }
}

function textOf(result: { content?: unknown }): string {
  const content = (result.content ?? []) as Array<{ type: string; text?: string }>
  return content.filter((part) => part.type === 'text').map((part) => part.text).join('\n')
}

// Resolves with the next fixture event (one JSON line on the child's stderr, logged by the gateway).
async function fixtureEvent(gateway: StartedGateway, predicate: (event: LogRecord) => boolean): Promise<LogRecord> {
  const record = await gateway.logs!.waitFor((entry) => {
    const event = readStderrEvent(entry)
    return event !== undefined && predicate(event)
  })
  return readStderrEvent(record)!
}

// The SDK v2 client pinned to 2026-07-28, declaring form elicitation, answering with `answer`.
async function elicitingClient(t: Test, url: string, answer: (params: Record<string, any>) => Record<string, unknown>): Promise<{ client: Client; asked: Array<Record<string, any>> }> {
  const client = new Client({ name: 'mrtr-bridge-test', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: PROTOCOL_VERSION } }, capabilities: { elicitation: {} } })
  const asked: Array<Record<string, any>> = []
  client.setRequestHandler('elicitation/create', async (request) => {
    asked.push(request.params as Record<string, any>)
    return answer(request.params as Record<string, any>) as any
  })
  await client.connect(new StreamableHTTPClientTransport(new URL(url)))
  t.teardown(() => client.close())
  return { client, asked }
}

// A raw first round of `tool` that must come back as input_required; its key and state.
async function firstRound(t: Test, raw: RawMcpClient, tool: string, meta: Record<string, unknown> = ELICITATION) {
  const reply = await raw.rpc('tools/call', { name: tool, arguments: {} }, { id: `${tool}-1`, meta })
  t.equal(reply.status, 200)
  t.equal(reply.json.result?.resultType, 'input_required', `${tool} → input_required`)
  const keys = Object.keys(reply.json.result.inputRequests)
  t.equal(keys.length, 1, 'one input request')
  return { reply, key: keys[0], state: reply.json.result.requestState as string }
}

function retry(raw: RawMcpClient, tool: string, inputResponses: unknown, requestState: unknown, id = `${tool}-2`): Promise<RawReply> {
  return raw.rpc('tools/call', { name: tool, arguments: {}, inputResponses, requestState }, { id, meta: ELICITATION })
}

const everythingHttp = await startEverythingHttp(t)
const gateway = await startGateway(t, {
  backends: [
    legacyStdio('legacy'),
    { name: 'ev', transport: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'], env: {}, namespace: 'ev' },
    { name: 'evh', transport: 'http', url: everythingHttp.url, namespace: 'evh' },
  ],
}, { logs: true, logLevel: 'debug' })
const raw = createRawClient(t, gateway.url)

t.test('SDK client, legacy stdio ask-name → its elicitation answered through input_required → hello Ada', async (t) => {
  const { client, asked } = await elicitingClient(t, gateway.url, () => ({ action: 'accept', content: { name: 'Ada' } }))
  const result = (await client.callTool({ name: 'ask-name', arguments: {} })) as CallToolResult
  t.equal(textOf(result), 'hello Ada')
  t.match(asked, [{ mode: 'form', message: 'What is your name?', requestedSchema: { properties: { name: { type: 'string' } } } }])
})

t.test('SDK client, legacy stdio ask-twice → two bridged rounds → Ada Lovelace', async (t) => {
  const answers = ['Ada', 'Lovelace']
  const { client, asked } = await elicitingClient(t, gateway.url, () => ({ action: 'accept', content: { name: answers[asked.length - 1] } }))
  const result = (await client.callTool({ name: 'ask-twice', arguments: {} })) as CallToolResult
  t.equal(textOf(result), 'Ada Lovelace')
  t.same(asked.map((params) => params.message), ['First name?', 'Last name?'])
})

for (const [label, tool] of [['stdio', 'ev__trigger-elicitation-request'], ['HTTP', 'evh__trigger-elicitation-request']]) {
  t.test(`SDK client, server-everything over ${label}, trigger-elicitation-request → the user's inputs in the result`, async (t) => {
    const { client, asked } = await elicitingClient(t, gateway.url, () => ({ action: 'accept', content: { name: 'Ada Lovelace', check: true, integer: 7 } }))
    const result = (await client.callTool({ name: tool, arguments: {} })) as CallToolResult
    t.equal(asked.length, 1, 'the client was asked once')
    t.match(asked[0], { message: /Please provide inputs/, requestedSchema: { type: 'object', required: ['name'] } })
    t.match(textOf(result), /User provided the requested information/)
    t.match(textOf(result), /Name: Ada Lovelace/)
  })
}

t.test('raw: input_required shape → keys chosen by the gateway, no jsonrpc/id, sealed state; retry → hello Bob', async (t) => {
  const { reply, key, state } = await firstRound(t, raw, 'ask-name')
  t.same(reply.json.result.inputRequests[key], {
    method: 'elicitation/create',
    params: { mode: 'form', message: 'What is your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
  })
  t.type(state, 'string')
  t.match(reply.json.result._meta, { [META.serverInfo]: { name: String } })
  const done = await retry(raw, 'ask-name', { [key]: { action: 'accept', content: { name: 'Bob' } } }, state)
  t.equal(done.json.id, 'ask-name-2')
  t.match(done.json.result, { resultType: 'complete', content: [{ type: 'text', text: 'hello Bob' }] })
  const again = await retry(raw, 'ask-name', { [key]: { action: 'accept', content: { name: 'Eve' } } }, state, 'ask-name-3')
  t.equal(again.json.error?.code, -32602, 'the same state again → -32602 (single use)')
})

t.test('raw: capability not declared → the backend gets -32601 and the call completes without input_required', async (t) => {
  const reply = await raw.rpc('tools/call', { name: 'ask-name', arguments: {} }, { id: 'nocap' })
  t.equal(reply.status, 200)
  t.match(reply.json.result, { resultType: 'complete', content: [{ type: 'text', text: 'hello error -32601' }] })
  const roots = await raw.rpc('tools/call', { name: 'ask-roots', arguments: {} }, { id: 'noroots', meta: ELICITATION })
  t.match(roots.json.result, { resultType: 'complete', content: [{ type: 'text', text: 'error -32601' }] }, 'elicitation only ≠ roots')
})

t.test('raw: roots/list bridged when roots is declared → {method} only; retry answers it', async (t) => {
  const meta = { [META.clientCapabilities]: { roots: {} } }
  const { reply, key, state } = await firstRound(t, raw, 'ask-roots', meta)
  t.same(reply.json.result.inputRequests[key], { method: 'roots/list' })
  const done = await raw.rpc('tools/call', { name: 'ask-roots', arguments: {}, inputResponses: { [key]: { roots: [] } }, requestState: state }, { id: 'roots-2', meta })
  t.match(done.json.result, { resultType: 'complete', content: [{ type: 'text', text: 'answered' }] })
})

t.test('raw: a retry without the needed response → asked again with the same key (ERR-15)', async (t) => {
  const { key, state } = await firstRound(t, raw, 'ask-name')
  const asked = await retry(raw, 'ask-name', { other: { action: 'decline' } }, state)
  t.equal(asked.json.result?.resultType, 'input_required')
  t.same(Object.keys(asked.json.result.inputRequests), [key])
  const done = await retry(raw, 'ask-name', { [key]: { action: 'decline' } }, asked.json.result.requestState, 'ask-name-3')
  t.match(done.json.result, { resultType: 'complete', content: [{ type: 'text', text: 'hello decline' }] })
})

t.test('raw: tampered, foreign or malformed bridge state → -32602; the held call still resumes', async (t) => {
  const { key, state } = await firstRound(t, raw, 'ask-name')
  const dot = state.lastIndexOf('.')
  const tampered = `${state.slice(0, dot + 1)}${state[dot + 1] === 'A' ? 'B' : 'A'}${state.slice(dot + 2)}`
  const answer = { [key]: { action: 'accept', content: { name: 'Mallory' } } }
  t.equal((await retry(raw, 'ask-name', answer, tampered)).json.error?.code, -32602, 'tampered MAC')
  t.equal((await retry(raw, 'ask-twice', answer, state)).json.error?.code, -32602, 'bound to another tool')
  t.equal((await retry(raw, 'ask-name', 'not-an-object', state)).json.error?.code, -32602, 'malformed inputResponses')
  const done = await retry(raw, 'ask-name', { [key]: { action: 'accept', content: { name: 'Carol' } } }, state, 'ask-name-ok')
  t.match(done.json.result, { content: [{ type: 'text', text: 'hello Carol' }] })
})

t.test('raw: client disconnects during a retry → the upstream call is cancelled', async (t) => {
  const { key, state } = await firstRound(t, raw, 'ask-and-wait')
  const controller = new AbortController()
  const params = { name: 'ask-and-wait', arguments: {}, inputResponses: { [key]: { action: 'accept', content: { name: 'Ada' } } }, requestState: state }
  const retried = raw.stream('tools/call', params, { id: 'drop', meta: ELICITATION, signal: controller.signal }).catch((err: unknown) => err)
  // The backend got the answer and now works on: the retry drives the call until it is dropped.
  const answered = await fixtureEvent(gateway, (event) => event.event === 'answered' && event.name === 'Ada')
  controller.abort()
  await retried
  const cancelled = await fixtureEvent(gateway, (event) => event.event === 'cancelled' && event.requestId === answered.requestId)
  t.ok(cancelled, 'the child saw notifications/cancelled for that call')
})

t.test('abandoned wait → the hold expires, the backend sees a cancel, the state is dead', async (t) => {
  const short = await startGateway(t, { stateTtlMs: 1_000, backends: [legacyStdio('legacy')] }, { logs: true, logLevel: 'debug' })
  const shortRaw = createRawClient(t, short.url)
  const { key, state } = await firstRound(t, shortRaw, 'ask-name')
  const asking = await fixtureEvent(short, (event) => event.event === 'asking')
  const abandoned = await short.logs!.waitFor((record) => record.msg === 'mrtr bridge: held call abandoned; cancelling upstream')
  t.match(abandoned, { backend: 'legacy', rpcMethod: 'tools/call', reason: /did not retry within 1000 ms/ })
  const cancelled = await fixtureEvent(short, (event) => event.event === 'cancelled')
  t.equal(cancelled.requestId, asking.requestId, 'the child saw notifications/cancelled for that call')
  const late = await retry(shortRaw, 'ask-name', { [key]: { action: 'accept', content: { name: 'Late' } } }, state)
  t.equal(late.json.error?.code, -32602)
})
