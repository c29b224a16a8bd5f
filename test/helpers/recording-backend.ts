// A minimal 2026-07-28 backend on node:http (one tool, `who`, unless given others) that records
// every request it gets: method, headers and `_meta`. For wire-level checks of what the gateway
// sends a backend. Every tools/call answers the text "ok".
import { once } from 'node:events'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { TeardownHost } from './backend-process.ts'

export interface RecordedRequest {
  method: string
  headers: IncomingHttpHeaders
  meta: Record<string, unknown>
}

export interface RecordingBackend {
  url: string
  // Every request, in arrival order.
  requests: RecordedRequest[]
}

const WHO = [{ name: 'who', inputSchema: { type: 'object' } }]

function resultFor(method: string, tools: unknown[]): Record<string, unknown> {
  if (method === 'server/discover') return { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, ttlMs: 0, cacheScope: 'private' }
  if (method === 'tools/list') return { resultType: 'complete', tools, ttlMs: 60_000, cacheScope: 'public' }
  return { resultType: 'complete', content: [{ type: 'text', text: 'ok' }] }
}

export async function startRecordingBackend(t: TeardownHost, tools: unknown[] = WHO): Promise<RecordingBackend> {
  const requests: RecordedRequest[] = []
  const server = createServer((req, res) => {
    let body = ''
    req.setEncoding('utf8').on('data', (c: string) => (body += c)).on('end', () => {
      const msg = JSON.parse(body) as { id: string; method: string; params?: { _meta?: Record<string, unknown> } }
      requests.push({ method: msg.method, headers: req.headers, meta: msg.params?._meta ?? {} })
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: resultFor(msg.method, tools) }))
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, requests }
}
