// Issue 9's done criterion, as a new user meets it: `npm start` with no options (no config file, no
// secret; only a free port instead of 8080) serves the 2025-11-25 clients people run most: the v1
// TypeScript SDK client and mcp-remote (the bridge desktop clients use), in front of the embedded
// default backend (server-everything over stdio). Real processes throughout.
import { createRequire } from 'node:module'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { startDefaultGateway } from '../helpers/gateway-process.ts'
import { connectV1 } from '../helpers/legacy-client.ts'
import { startStdioPeer } from '../helpers/stdio-peer.ts'

const require = createRequire(import.meta.url)
const MCP_REMOTE = require.resolve('mcp-remote/dist/proxy.js')

const gateway = await startDefaultGateway(t)
await gateway.waitForLine(/STATE SECRET GENERATED/)
// server-everything's own roots/list, 350 ms after initialize, is refused while no call is in flight.
await gateway.waitForLine(/"rpcMethod":"roots\/list".*"msg":"stdio backend request refused"/)

function textOf(result: any): string {
  return (result.content ?? []).filter((part: any) => part.type === 'text').map((part: any) => part.text).join('\n')
}

t.test('v1 SDK client: initialize (2025-11-25), tools/list, tools/call', async (t) => {
  const { client, transport } = await connectV1(t, gateway.url, { name: 'new-user' })
  t.equal(client.getServerVersion()?.name, 'mcp-gateway')
  t.equal(transport.protocolVersion, '2025-11-25', 'negotiated the version the client asked for')
  t.ok((await client.listTools()).tools.some((tool) => tool.name === 'echo'), 'server-everything\'s tools listed')
  t.equal(textOf(await client.callTool({ name: 'echo', arguments: { message: 'v1' } })), 'Echo: v1')
})

t.test('mcp-remote over its stdio: initialize, tools/list, tools/call', async (t) => {
  const peer = startStdioPeer(t, [MCP_REMOTE, gateway.url, '--transport', 'http-only'], { MCP_REMOTE_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'mcp-remote-')) })
  const init = await peer.request(1, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'desktop', version: '1.0.0' } })
  t.match(init.result, { protocolVersion: '2025-11-25', serverInfo: { name: 'mcp-gateway' } })
  peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' })
  t.ok((await peer.request(2, 'tools/list')).result.tools.some((tool: any) => tool.name === 'echo'), 'server-everything\'s tools listed')
  t.equal(textOf((await peer.request(3, 'tools/call', { name: 'echo', arguments: { message: 'desk' } })).result), 'Echo: desk')
})
