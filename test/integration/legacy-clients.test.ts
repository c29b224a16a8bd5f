// 2025-11-25 clients on the same /mcp endpoint (LEGACY-1..16), with backends of both eras behind:
// the gateway answers initialize, mints a sealed session id, and serves every request of the
// session through the one router. Real peers: the v1 SDK client, raw legacy POSTs,
// an SDK v2 HTTP backend (modern) and the legacy stdio fixture (2025-11-25 only).
import t from 'tap'
import type { Test } from 'tap'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { startTwoEraGateway } from '../helpers/two-era-gateway.ts'
import { createRawClient } from '../helpers/mcp-client.ts'
import { LegacySessions } from '../../src/front/legacy/sessions.ts'
import { Sealer } from '../../src/routing/seal.ts'
import { MemoryEndedSessions } from '../../src/shared-state/ended-sessions.ts'
import { LEGACY_VERSION, connectV1, legacyRpc, openRawSession, sessionHeaders } from '../helpers/legacy-client.ts'

const { gateway } = await startTwoEraGateway(t)
const raw = createRawClient(t, gateway.url)

function textOf(result: { content?: unknown }): string {
  const content = (result.content ?? []) as Array<{ type: string; text?: string }>
  return content.filter((part) => part.type === 'text').map((part) => part.text).join('\n')
}

async function v1(t: Test): Promise<Client> {
  return (await connectV1(t, gateway.url)).client
}

t.test('v1 SDK client connects → the gateway\'s serverInfo, 2025-11-25, capabilities from the backends', async (t) => {
  const { client, transport } = await connectV1(t, gateway.url)
  t.match(client.getServerVersion(), { name: 'mcp-gateway', version: String })
  t.match(client.getServerCapabilities(), { tools: { listChanged: true }, prompts: {}, resources: { subscribe: true }, completions: {}, logging: {} })
  t.equal(transport.protocolVersion, LEGACY_VERSION)
  t.match(transport.sessionId, /^[\x21-\x7e]+$/, 'session id: visible ASCII (LEGACY-4)')
  t.ok(transport.sessionId!.length < 1024, `session id is ${transport.sessionId!.length} chars`)
})

t.test('v1: tools/list → both backends\' tools; tools/call through the router (modern and legacy backend)', async (t) => {
  const client = await v1(t)
  const { tools } = await client.listTools()
  const names = tools.map((tool) => tool.name)
  for (const name of ['a__echo', 'a__ask-name', 'lg__echo', 'lg__ask-name']) t.ok(names.includes(name), `lists ${name}`)
  t.equal(textOf(await client.callTool({ name: 'a__echo', arguments: { text: 'hi' } }) as never), 'alpha:hi')
  t.equal(textOf(await client.callTool({ name: 'lg__echo', arguments: { text: 'old' } }) as never), 'old')
})

t.test('v1: prompts, resources, templates, completion → 2025-11-25 results', async (t) => {
  const client = await v1(t)
  const { prompts } = await client.listPrompts()
  t.ok(prompts.some((p) => p.name === 'a__greet'), 'prompts listed')
  const prompt = await client.getPrompt({ name: 'a__greet', arguments: { name: 'Ada' } })
  t.match(prompt.messages, [{ content: { text: 'alpha says hello to Ada' } }])
  const { resources } = await client.listResources()
  t.ok(resources.some((r) => r.uri === 'fixture://alpha/info'), 'resources listed')
  const read = await client.readResource({ uri: 'fixture://alpha/info' })
  t.match(read.contents, [{ text: 'backend alpha' }])
  const { resourceTemplates } = await client.listResourceTemplates()
  t.ok(resourceTemplates.some((r) => r.uriTemplate === 'fixture://alpha/users/{user}'), 'templates listed')
  const completion = await client.complete({ ref: { type: 'ref/resource', uri: 'fixture://alpha/users/{user}' }, argument: { name: 'user', value: 'alpha-a' } })
  t.same(completion.completion.values, ['alpha-ann'])
})

t.test('v1: ping → {} (answered by the gateway, LEGACY-12); a backend\'s ping is answered too', async (t) => {
  const client = await v1(t)
  t.same(await client.ping(), {})
  t.equal(textOf(await client.callTool({ name: 'lg__ping-client', arguments: {} }) as never), 'pong')
})

t.test('v1: progress → notifications/progress on the POST stream, then the result', async (t) => {
  const client = await v1(t)
  const seen: number[] = []
  const result = await client.callTool({ name: 'a__progress', arguments: { steps: 3, delayMs: 5 } }, undefined, {
    onprogress: (progress) => seen.push(progress.progress),
  })
  t.equal(textOf(result as never), 'done')
  t.same(seen, [1, 2, 3])
})

t.test('v1: errors in 2025-11-25 form, in band', async (t) => {
  const client = await v1(t)
  await t.rejects(client.callTool({ name: 'a__missing', arguments: {} }), { code: -32602 }, 'unknown tool → -32602')
  await t.rejects(client.readResource({ uri: 'nowhere://x' }), { code: -32002 }, 'missing resource → -32002')
})

t.test('raw: results carry no resultType; the initialize reply names the session', async (t) => {
  const { sessionId, reply } = await openRawSession(raw)
  t.equal(reply.status, 200)
  t.match(reply.json, { jsonrpc: '2.0', id: 'init', result: { protocolVersion: LEGACY_VERSION, serverInfo: { name: 'mcp-gateway' } } })
  const list = await legacyRpc(raw, sessionId, 'tools/list')
  t.equal(list.status, 200)
  t.notOk('resultType' in list.json.result, 'no resultType on a list')
  const call = await legacyRpc(raw, sessionId, 'tools/call', { name: 'a__echo', arguments: { text: 'r' } }, 7)
  t.match(call.json, { id: 7, result: { content: [{ text: 'alpha:r' }] } })
  t.notOk('resultType' in call.json.result, 'no resultType on a call')
})

t.test('raw: initialize asks for 2025-06-18 → 2025-06-18; for 2024-11-05 → 2025-11-25', async (t) => {
  for (const [asked, got] of [['2025-06-18', '2025-06-18'], ['2024-11-05', '2025-11-25']]) {
    const reply = await raw.post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: asked, capabilities: {}, clientInfo: { name: 'c', version: '1' } } })
    t.equal(reply.json.result.protocolVersion, got, `${asked} → ${got}`)
    const sessionId = reply.headers['mcp-session-id'] as string
    const ping = await raw.post({ jsonrpc: '2.0', id: 2, method: 'ping' }, sessionHeaders(sessionId, got))
    t.same(ping.json.result, {}, `the session speaks ${got}`)
  }
})

// Each refusal: the status, a JSON-RPC error body from the catalogue, and nothing left behind.
t.test('raw: bad input → a clear error each', async (t) => {
  const { sessionId } = await openRawSession(raw)
  // Another gateway's session (another secret), and ours with one character changed.
  const foreign = new LegacySessions({ sealer: new Sealer('another-secret-another-secret-!!'), ended: new MemoryEndedSessions(), ttlMs: 60_000 })
    .create({ requested: LEGACY_VERSION, version: LEGACY_VERSION, capabilities: {}, clientInfo: { name: 'c', version: '1' } }, 'anonymous').token
  const middle = Math.floor(sessionId.length / 2)
  const tampered = `${sessionId.slice(0, middle)}${sessionId[middle] === 'A' ? 'B' : 'A'}${sessionId.slice(middle + 1)}`
  const cases: Array<[string, () => Promise<{ status: number; json: any; text: string }>, number, number]> = [
    ['request without a session id, legacy version header → 400', () => raw.post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'mcp-protocol-version': LEGACY_VERSION }), 400, -32600],
    ['garbage session id → 404', () => legacyRpc(raw, 'garbage', 'tools/list'), 404, -32600],
    ['a session sealed with another secret → 404', () => legacyRpc(raw, foreign, 'tools/list'), 404, -32600],
    ['a tampered session id → 404', () => legacyRpc(raw, tampered, 'tools/list'), 404, -32600],
    ['version header ≠ the session\'s → 400', () => raw.post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, sessionHeaders(sessionId, '2025-06-18')), 400, -32600],
    ['initialize again on the session → 400', () => raw.post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo: { name: 'c', version: '1' } } }, sessionHeaders(sessionId)), 400, -32600],
    ['a response nobody waits for → 400', () => raw.post({ jsonrpc: '2.0', id: 'nobody', result: {} }, sessionHeaders(sessionId)), 400, -32600],
    ['initialize without clientInfo → -32602 in band', () => raw.post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: LEGACY_VERSION, capabilities: {} } }), 200, -32602],
    ['unknown method → -32601 in band', () => legacyRpc(raw, sessionId, 'tools/destroy'), 200, -32601],
    ['a modern-only method → -32601 in band', () => legacyRpc(raw, sessionId, 'server/discover'), 200, -32601],
  ]
  for (const [name, send, status, code] of cases) {
    const reply = await send()
    t.equal(reply.status, status, `${name}: status`)
    t.equal(reply.json?.error?.code, code, `${name}: code ${code}`)
    t.type(reply.json?.error?.message, 'string', `${name}: a message`)
  }
  const ok = await legacyRpc(raw, sessionId, 'ping')
  t.same(ok.json.result, {}, 'the session still works')
})

t.test('raw: notifications → 202 with no body', async (t) => {
  const { sessionId } = await openRawSession(raw)
  for (const method of ['notifications/initialized', 'notifications/roots/list_changed', 'notifications/cancelled']) {
    const reply = await raw.post({ jsonrpc: '2.0', method, params: method === 'notifications/cancelled' ? { requestId: 'none' } : {} }, sessionHeaders(sessionId))
    t.equal(reply.status, 202, method)
    t.equal(reply.text, '', `${method}: empty body`)
  }
})

t.test('modern requests are unchanged beside legacy sessions (HTTP-11)', async (t) => {
  const { sessionId } = await openRawSession(raw)
  const reply = await raw.rpc('tools/call', { name: 'a__echo', arguments: { text: 'm' } }, { headers: { 'mcp-session-id': sessionId } })
  t.equal(reply.status, 200)
  t.match(reply.json.result, { resultType: 'complete', content: [{ text: 'alpha:m' }] })
  t.equal(reply.headers['mcp-session-id'], undefined, 'never echoed on modern traffic')
})
