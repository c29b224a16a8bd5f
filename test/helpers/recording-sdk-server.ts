// A real SDK v2 MCP server (tool `echo`) that records the Authorization header of every request,
// optionally protected by the gateway's own auth modules (GatewayAuth, the PRM document): a
// protected backend whose tokens must be for its own URL. Refusals carry the catalogue's status,
// challenge and JSON-RPC body.
import type { Test } from 'tap'
import { Agent } from 'undici'
import { McpServer, createMcpHandler, fromJsonSchema } from '@modelcontextprotocol/server'
import type { Dispatcher } from 'undici'
import { GatewayAuth } from '../../src/auth/gateway-auth.ts'
import { startFetchServer } from '../fixtures/lib/fetch-server.ts'
import { settingsFor } from './auth-settings.ts'
import { findFreePort } from './ports.ts'

const ECHO = fromJsonSchema<{ text: string }>({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] })

export interface RecordingServer {
  url: string
  // Authorization headers the MCP endpoint received, in order.
  authorizations: Array<string | undefined>
  // The next `count` requests are refused with 401 and the server's own challenge, whatever they carry.
  refuseNext(count: number): void
}

export interface RecordingOptions {
  // server/discover answered without a token (a protected server that lets anyone probe it).
  openDiscover?: boolean
}

export async function startRecordingServer(t: Test, auth: (resource: string) => Record<string, unknown> = () => ({}), options: RecordingOptions = {}): Promise<RecordingServer> {
  const port = await findFreePort()
  const resource = `http://127.0.0.1:${port}/mcp`
  const dispatcher: Dispatcher = new Agent()
  t.teardown(() => dispatcher.close())
  const gatewayAuth = new GatewayAuth({ settings: settingsFor(auth(resource)), dispatcher })
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: 'protected', version: '1.0.0' })
    server.registerTool('echo', { description: 'echo', inputSchema: ECHO }, async ({ text }) => ({ content: [{ type: 'text', text }] }))
    return server
  })
  const authorizations: Array<string | undefined> = []
  let refusals = 0
  const metadata = gatewayAuth.metadata ?? { paths: [], body: '' }
  const server = await startFetchServer({
    port,
    handler: async (request) => {
      const url = new URL(request.url)
      if (metadata.paths.includes(url.pathname)) return new Response(metadata.body, { headers: { 'content-type': 'application/json', 'access-control-allow-origin': '*' } })
      authorizations.push(request.headers.get('authorization') ?? undefined)
      if (refusals > 0) {
        refusals--
        const challenge = `Bearer resource_metadata="${new URL('/.well-known/oauth-protected-resource/mcp', resource)}", error="invalid_token"`
        return new Response('{"jsonrpc":"2.0","error":{"code":-32600,"message":"token revoked"}}', { status: 401, headers: { 'www-authenticate': challenge, 'content-type': 'application/json' } })
      }
      if (options.openDiscover && request.headers.get('mcp-method') === 'server/discover') return handler.fetch(request)
      const outcome = await gatewayAuth.authenticate({ authorization: request.headers.get('authorization') ?? undefined, url: url.pathname + url.search })
      if (outcome.ok) return handler.fetch(request)
      const body = JSON.stringify({ jsonrpc: '2.0', error: outcome.error.toJsonRpcError() })
      return new Response(body, { status: outcome.error.httpStatus, headers: { 'content-type': 'application/json', ...outcome.error.headers } })
    },
  })
  t.teardown(async () => {
    await handler.close()
    await server.close()
  })
  return { url: server.url, authorizations, refuseNext: (count) => { refusals = count } }
}
