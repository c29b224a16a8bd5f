// Discover, aggregated tools/list and routed tools/call through the gateway, on real sockets: two SDK
// v2 backends as child processes (namespaces `a` and `b`), driven by the SDK v2 client pinned to
// 2026-07-28 and by raw undici requests.
import t from 'tap'
import type { CallToolResult } from '@modelcontextprotocol/client'
import { startFixture } from '../helpers/backend-process.ts'
import { startGateway } from '../helpers/start-gateway.ts'
import { META, PROTOCOL_VERSION, connectClient, createRawClient } from '../helpers/mcp-client.ts'

const BACKEND = new URL('../fixtures/sdk-http-backend.ts', import.meta.url).pathname
const FIXTURE_TOOLS = ['add', 'echo', 'fail', 'hang', 'progress']

// One backend pair and one gateway for the whole file.
const [alpha, beta] = await Promise.all([
  startFixture(t, BACKEND, ['--name', 'alpha']),
  startFixture(t, BACKEND, ['--name', 'beta']),
])
const gateway = await startGateway(t, {
  backends: [
    { name: 'a', transport: 'http', url: alpha.url, namespace: 'a' },
    { name: 'b', transport: 'http', url: beta.url, namespace: 'b' },
  ],
})
const raw = createRawClient(t, gateway.url)

function firstText(result: CallToolResult): string | undefined {
  const block = result.content[0]
  return block?.type === 'text' ? block.text : undefined
}

t.test('server/discover (raw) → versions, capabilities, serverInfo, ttlMs, cacheScope, resultType', async (t) => {
  const reply = await raw.rpc('server/discover', {}, { id: 'disc-1' })
  t.equal(reply.status, 200)
  t.match(reply.headers['content-type'], /^application\/json/)
  t.equal(reply.json.id, 'disc-1')
  const result = reply.json.result
  t.same(result.supportedVersions, [PROTOCOL_VERSION])
  t.equal(result.resultType, 'complete')
  t.ok(Number.isInteger(result.ttlMs) && result.ttlMs >= 0, 'ttlMs is an integer >= 0')
  t.ok(['public', 'private'].includes(result.cacheScope), 'cacheScope is public or private')
  t.same(result._meta[META.serverInfo], { name: 'mcp-gateway', version: '0.1.0' })
  // The fixtures declare tools, prompts, resources and logging; the gateway serves all four.
  t.match(result.capabilities, { tools: {}, prompts: {}, resources: {}, logging: {} })
  t.notOk('completions' in result.capabilities, 'no backend offers completions → not advertised')
})

t.test('server/discover (SDK client pinned to 2026-07-28) → negotiates and sees the gateway', async (t) => {
  const client = await connectClient(t, gateway.url)
  t.equal(client.getNegotiatedProtocolVersion(), PROTOCOL_VERSION)
  t.equal(client.getServerVersion()?.name, 'mcp-gateway')
  t.ok(client.getServerCapabilities()?.tools, 'tools capability advertised')
  t.same(client.getDiscoverResult()?.supportedVersions, [PROTOCOL_VERSION])
})

t.test('tools/list over two backends → every tool once per namespace, backends in configured order', async (t) => {
  const client = await connectClient(t, gateway.url)
  const { tools } = await client.listTools()
  const names = tools.map((tool) => tool.name)
  t.same(names.filter((n) => n.startsWith('a__')).map((n) => n.slice(3)).sort(), FIXTURE_TOOLS)
  t.same(names.filter((n) => n.startsWith('b__')).map((n) => n.slice(3)).sort(), FIXTURE_TOOLS)
  t.equal(names.length, FIXTURE_TOOLS.length * 2, 'nothing else listed')
  const lastA = names.findLastIndex((n) => n.startsWith('a__'))
  const firstB = names.findIndex((n) => n.startsWith('b__'))
  t.ok(lastA < firstB, 'backend a (configured first) comes before backend b')
  t.match(tools.find((tool) => tool.name === 'a__echo'), { description: /Echoes text/, inputSchema: { type: 'object' } })
})

// Follows gateway cursors to the end; returns the names page by page.
async function listToolPages(): Promise<string[][]> {
  const pages: string[][] = []
  let cursor: string | undefined
  do {
    const reply = await raw.rpc('tools/list', cursor === undefined ? {} : { cursor }, { id: pages.length })
    if (reply.status !== 200) throw new Error(`tools/list: HTTP ${reply.status} ${reply.text}`)
    pages.push(reply.json.result.tools.map((tool: { name: string }) => tool.name))
    cursor = reply.json.result.nextCursor
  } while (cursor !== undefined && pages.length < 10)
  return pages
}

t.test('tools/list (raw) followed to the end three times → identical pages and order every time (CAP-5)', async (t) => {
  const first = await listToolPages()
  t.same(await listToolPages(), first)
  t.same(await listToolPages(), first)
  t.equal(first.flat().length, FIXTURE_TOOLS.length * 2)
})

t.test('tools/list (raw) → stamped resultType, cache hints, gateway serverInfo; pages span backends', async (t) => {
  const small = await startGateway(t, { listPageSize: 3, backends: gateway.config.backends })
  const reply = await createRawClient(t, small.url).rpc('tools/list')
  const result = reply.json.result
  t.equal(result.resultType, 'complete')
  t.ok(Number.isInteger(result.ttlMs) && result.ttlMs >= 0, 'ttlMs is an integer >= 0')
  t.ok(['public', 'private'].includes(result.cacheScope), 'cacheScope is public or private')
  t.equal(result._meta[META.serverInfo].name, 'mcp-gateway')
  t.equal(result.tools.length, 3, 'pageSize items')
  t.ok(result.tools.every((tool: { name: string }) => tool.name.startsWith('a__')), 'first page starts with backend a')
  t.type(result.nextCursor, 'string', 'a cursor to the next page')
  const whole = await raw.rpc('tools/list')
  t.equal(whole.json.result.nextCursor, undefined, 'with the default page size one page holds both backends')
  t.equal(whole.json.result.tools.length, FIXTURE_TOOLS.length * 2)
})

t.test('tools/list with a tampered cursor → -32602 at HTTP 200', async (t) => {
  const reply = await raw.rpc('tools/list', { cursor: 'not-a-gateway-cursor' }, { id: 'cur' })
  t.equal(reply.status, 200)
  t.equal(reply.json.id, 'cur')
  t.equal(reply.json.error?.code, -32602)
})

t.test('tools/call a__echo and b__echo → each answered by its own backend', async (t) => {
  const client = await connectClient(t, gateway.url)
  const fromA = (await client.callTool({ name: 'a__echo', arguments: { text: 'hi' } })) as CallToolResult
  const fromB = (await client.callTool({ name: 'b__echo', arguments: { text: 'hi' } })) as CallToolResult
  t.equal(firstText(fromA), 'alpha:hi')
  t.equal(firstText(fromB), 'beta:hi')
})

t.test('tools/call b__add (raw) → result stamped with resultType and gateway serverInfo', async (t) => {
  const reply = await raw.rpc('tools/call', { name: 'b__add', arguments: { a: 2, b: 40 } }, { id: 'add-1' })
  t.equal(reply.status, 200)
  t.equal(reply.json.id, 'add-1')
  t.match(reply.json.result, { resultType: 'complete', content: [{ type: 'text', text: '42' }] })
  t.same(reply.json.result._meta[META.serverInfo], { name: 'mcp-gateway', version: '0.1.0' })
})

t.test('tools/call a__fail → isError result passed through, not a JSON-RPC error', async (t) => {
  const reply = await raw.rpc('tools/call', { name: 'a__fail', arguments: {} })
  t.equal(reply.status, 200)
  t.equal(reply.json.error, undefined)
  t.match(reply.json.result, { isError: true, content: [{ text: 'alpha: this tool always fails' }] })
})

t.test('tools/call of an unknown tool → -32602 at HTTP 200, id echoed', async (t) => {
  for (const name of ['a__nope', 'echo', 'c__echo']) {
    const reply = await raw.rpc('tools/call', { name, arguments: {} }, { id: `unknown-${name}` })
    t.equal(reply.status, 200, `${name}: status`)
    t.equal(reply.json.id, `unknown-${name}`, `${name}: id echoed`)
    t.equal(reply.json.error?.code, -32602, `${name}: code`)
    t.match(reply.json.error?.message, name, `${name}: message names the tool`)
  }
})

t.test('tools/call of an unknown tool (SDK client) → rejects with -32602', async (t) => {
  const client = await connectClient(t, gateway.url)
  await t.rejects(client.callTool({ name: 'a__missing', arguments: {} }), { code: -32602 })
})

t.test('Mcp-Session-Id on a modern request → ignored, never echoed (HTTP-11)', async (t) => {
  const reply = await raw.rpc('tools/call', { name: 'a__echo', arguments: { text: 's' } }, { headers: { 'mcp-session-id': 'stale-session' } })
  t.equal(reply.status, 200)
  t.match(reply.json.result, { content: [{ text: 'alpha:s' }] })
  t.equal(reply.headers['mcp-session-id'], undefined)
})

t.test('two backends both with namespace "" → each name listed once, the first backend wins (README)', async (t) => {
  const flat = await startGateway(t, {
    backends: [
      { name: 'a', transport: 'http', url: alpha.url, namespace: '' },
      { name: 'b', transport: 'http', url: beta.url, namespace: '' },
    ],
  })
  const client = await connectClient(t, flat.url)
  const { tools } = await client.listTools()
  t.same(tools.map((tool) => tool.name).sort(), FIXTURE_TOOLS, 'no duplicates')
  const echo = (await client.callTool({ name: 'echo', arguments: { text: 'who' } })) as CallToolResult
  t.equal(firstText(echo), 'alpha:who', 'routed to the first configured backend')
})
