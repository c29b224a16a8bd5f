// 2025-11-25 clients for the gateway under test: the v1 TypeScript SDK client over its Streamable
// HTTP transport (the most used MCP client library), and raw legacy POSTs (no modern `_meta`, no
// mirrored headers) for the wire-level cases. Constants are spelled out, not imported from src/.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { Agent, fetch as undiciFetch } from 'undici'
import type { TeardownHost } from './backend-process.ts'
import type { RawMcpClient, RawReply } from './mcp-client.ts'

export const LEGACY_VERSION = '2025-11-25'

export interface V1Options {
  name?: string
  capabilities?: Record<string, unknown>
}

// The client's own connection pool, destroyed at teardown: a pooled socket of the process-wide
// fetch dispatcher would outlive the test (and hold the gateway's close until its keep-alive ends).
export function createFetch(): { fetch: (url: string | URL, init?: RequestInit) => Promise<Response>; destroy: () => Promise<void> } {
  const agent = new Agent()
  const fetch = (url: string | URL, init?: RequestInit): Promise<Response> => undiciFetch(url, { ...(init as object), dispatcher: agent }) as unknown as Promise<Response>
  return { fetch, destroy: () => agent.destroy() }
}

// A connected v1 client; closed (its session deleted first) at teardown.
export async function connectV1(t: TeardownHost, url: string, options: V1Options = {}): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: options.name ?? 'v1-client', version: '1.0.0' }, { capabilities: options.capabilities ?? {} })
  const pool = createFetch()
  const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: pool.fetch })
  t.teardown(async () => {
    await transport.terminateSession().catch(() => undefined)
    await client.close()
    await pool.destroy()
  })
  await client.connect(transport)
  return { client, transport }
}

// A raw legacy exchange: initialize, then notifications/initialized; resolves with the session id.
export async function openRawSession(raw: RawMcpClient, capabilities: Record<string, unknown> = {}): Promise<{ sessionId: string; reply: RawReply }> {
  const reply = await raw.post({
    jsonrpc: '2.0', id: 'init', method: 'initialize',
    params: { protocolVersion: LEGACY_VERSION, capabilities, clientInfo: { name: 'raw-legacy', version: '1.0.0' } },
  })
  const sessionId = reply.headers['mcp-session-id']
  if (typeof sessionId !== 'string') throw new Error(`initialize → no session id (${reply.status} ${reply.text})`)
  await raw.post({ jsonrpc: '2.0', method: 'notifications/initialized' }, sessionHeaders(sessionId))
  return { sessionId, reply }
}

export function sessionHeaders(sessionId: string, version = LEGACY_VERSION): Record<string, string> {
  return { 'mcp-session-id': sessionId, 'mcp-protocol-version': version }
}

// A raw legacy request of a session.
export function legacyRpc(raw: RawMcpClient, sessionId: string, method: string, params: Record<string, unknown> = {}, id: string | number = 1): Promise<RawReply> {
  return raw.post({ jsonrpc: '2.0', id, method, params }, sessionHeaders(sessionId))
}
