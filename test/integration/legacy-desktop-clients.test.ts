// The 2025-11-25 clients people run most, against the gateway on the same /mcp endpoint (LEGACY-1,
// LEGACY-16): mcp-remote (the stdio↔HTTP bridge of desktop clients) driven over its stdio in JSON-RPC
// lines, and the v2 SDK client in its default negotiation (the plain 2025 sequence). Behind the
// gateway: server-everything over stdio (the default config) and an SDK v2 HTTP backend (modern).
import { createRequire } from 'node:module'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { startFixture } from '../helpers/backend-process.ts'
import { startGateway } from '../helpers/start-gateway.ts'
import { createFetch } from '../helpers/legacy-client.ts'
import { startStdioPeer, type StdioPeer } from '../helpers/stdio-peer.ts'

const require = createRequire(import.meta.url)
const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js')
const MCP_REMOTE = require.resolve('mcp-remote/dist/proxy.js')
const BACKEND = new URL('../fixtures/sdk-http-backend.ts', import.meta.url).pathname

const alpha = await startFixture(t, BACKEND, ['--name', 'alpha', '--extras'])
const gateway = await startGateway(t, {
  backends: [
    { name: 'everything', transport: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'], env: {}, namespace: '' },
    { name: 'a', transport: 'http', url: alpha.url, namespace: 'a' },
  ],
})

function textOf(result: any): string {
  return (result.content ?? []).filter((part: any) => part.type === 'text').map((part: any) => part.text).join('\n')
}

// mcp-remote on the gateway URL, HTTP only (loopback needs no --allow-http), its config in a temp dir.
async function startMcpRemote(t: Parameters<typeof startStdioPeer>[0], capabilities: object): Promise<StdioPeer> {
  const peer = startStdioPeer(t, [MCP_REMOTE, gateway.url, '--transport', 'http-only'], { MCP_REMOTE_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'mcp-remote-')) })
  const init = await peer.request(1, 'initialize', { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'desktop', version: '1.0.0' } })
  if (init.result?.serverInfo?.name !== 'mcp-gateway') throw new Error(`initialize through mcp-remote: ${JSON.stringify(init)}`)
  peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' })
  return peer
}

t.test('mcp-remote: initialize, tools/list, tools/call, ping, prompts, resources through the bridge', async (t) => {
  const peer = await startMcpRemote(t, {})
  const tools = await peer.request(2, 'tools/list')
  const names = tools.result.tools.map((tool: any) => tool.name)
  for (const name of ['echo', 'get-sum', 'a__echo']) t.ok(names.includes(name), `lists ${name}`)
  t.equal(textOf((await peer.request(3, 'tools/call', { name: 'echo', arguments: { message: 'desk' } })).result), 'Echo: desk', 'legacy backend')
  t.equal(textOf((await peer.request(4, 'tools/call', { name: 'a__echo', arguments: { text: 'desk' } })).result), 'alpha:desk', 'modern backend')
  t.same((await peer.request(5, 'ping')).result, {})
  t.ok((await peer.request(6, 'prompts/list')).result.prompts.length > 0, 'prompts listed')
  const read = await peer.request(7, 'resources/read', { uri: 'fixture://alpha/info' })
  t.match(read.result.contents, [{ text: 'backend alpha' }])
  t.equal((await peer.request(8, 'tools/call', { name: 'nope', arguments: {} })).error?.code, -32602, 'unknown tool → -32602')
})

t.test('mcp-remote: progress, then elicitation asked of the desktop client (both backend eras)', async (t) => {
  const peer = await startMcpRemote(t, { elicitation: {} })
  const progress = peer.request(10, 'tools/call', { name: 'a__progress', arguments: { steps: 2, delayMs: 5 }, _meta: { progressToken: 'desk-p' } })
  const first = await peer.next((m) => m.method === 'notifications/progress')
  t.match(first.params, { progressToken: 'desk-p', progress: 1, total: 2 })
  t.equal(textOf((await progress).result), 'done')
  for (const [id, tool] of [[11, 'a__ask-name'], [12, 'trigger-elicitation-request']] as const) {
    const call = peer.request(id, 'tools/call', { name: tool, arguments: {} })
    const asked = await peer.next((m) => m.method === 'elicitation/create')
    t.match(asked, { jsonrpc: '2.0', id: String, params: { message: String } }, `${tool}: the desktop client is asked`)
    peer.send({ jsonrpc: '2.0', id: asked.id, result: { action: 'accept', content: { name: 'Desk', check: true, integer: 3 } } })
    const done = await call
    t.match(textOf(done.result), tool === 'a__ask-name' ? /Hello, Desk!/ : /User provided the requested information/, `${tool}: completed with the answer`)
  }
})

// The v2 client without versionNegotiation runs the plain 2025 sequence (its documented default).
async function connectV2(t: Parameters<typeof startStdioPeer>[0]): Promise<Client> {
  const client = new Client({ name: 'v2-default', version: '1.0.0' }, { capabilities: { elicitation: {} } })
  const pool = createFetch()
  const transport = new StreamableHTTPClientTransport(new URL(gateway.url), { fetch: pool.fetch as never })
  t.teardown(async () => {
    await transport.terminateSession().catch(() => undefined)
    await client.close()
    await pool.destroy()
  })
  await client.connect(transport)
  return client
}

t.test('v2 SDK client, default negotiation: 2025-11-25 session, lists, calls, elicitation both eras', async (t) => {
  const client = await connectV2(t)
  t.equal(client.getNegotiatedProtocolVersion(), '2025-11-25')
  t.match(client.getServerVersion(), { name: 'mcp-gateway' })
  const { tools } = await client.listTools()
  t.ok(tools.some((tool) => tool.name === 'get-sum') && tools.some((tool) => tool.name === 'a__add'), 'both backends listed')
  t.match(textOf(await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } })), /5/)
  t.equal(textOf(await client.callTool({ name: 'a__add', arguments: { a: 2, b: 3 } })), '5')
  const asked: string[] = []
  client.setRequestHandler('elicitation/create', async (request) => {
    asked.push(String((request.params as { message?: unknown }).message))
    return { action: 'accept', content: { name: 'Vee', check: true, integer: 1 } } as never
  })
  t.match(JSON.parse(textOf(await client.callTool({ name: 'a__ask-name', arguments: {} }))), { greeting: 'Hello, Vee!' }, 'modern backend input_required → asked and retried')
  t.match(textOf(await client.callTool({ name: 'trigger-elicitation-request', arguments: {} })), /User provided the requested information/, 'legacy backend request → relayed')
  t.equal(asked.length, 2, 'asked once per call')
  t.same(await client.ping(), {})
})
