// A minimal 2026-07-28 backend on node:http (one tool, `who`, unless given others) that records
// every request it gets: method, headers and `_meta`. For wire-level checks of what the gateway
// sends a backend. A tools/call answers the tool's `error` or `result` if its definition has one,
// else the text "ok", unless, as a 2026-07-28 server must, it refuses the call with -32020 (HTTP
// 400): a top-level argument annotated with x-mcp-header whose Mcp-Param-* header is missing or
// differs, or a tool defined with `refuseCalls: true`.
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

type ToolCall = { name?: string; arguments?: Record<string, unknown> }

// Why a tools/call is refused with -32020, if it is (top-level annotations only).
function headerRefusal(tools: unknown[], call: ToolCall, headers: IncomingHttpHeaders): string | undefined {
  const tool = tools.find((t) => (t as { name?: string }).name === call.name) as { refuseCalls?: boolean; inputSchema?: { properties?: Record<string, Record<string, unknown>> } } | undefined
  if (tool?.refuseCalls === true) return 'refused by definition'
  for (const [name, prop] of Object.entries(tool?.inputSchema?.properties ?? {})) {
    const header = prop['x-mcp-header']
    const value = call.arguments?.[name]
    if (typeof header !== 'string' || value === undefined) continue
    if (headers[`mcp-param-${header.toLowerCase()}`] !== String(value)) return `Mcp-Param-${header} missing or mismatched`
  }
  return undefined
}

// The JSON-RPC error a tool's definition says its calls answer (`error`), if any.
function errorFor(tools: unknown[], call: ToolCall): Record<string, unknown> | undefined {
  return (tools.find((t) => (t as { name?: string }).name === call.name) as { error?: Record<string, unknown> } | undefined)?.error
}

function resultFor(method: string, tools: unknown[], call: ToolCall): Record<string, unknown> {
  if (method === 'server/discover') return { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, ttlMs: 0, cacheScope: 'private' }
  if (method === 'tools/list') return { resultType: 'complete', tools, ttlMs: 60_000, cacheScope: 'public' }
  const tool = tools.find((t) => (t as { name?: string }).name === call.name) as { result?: Record<string, unknown> } | undefined
  return tool?.result ?? { resultType: 'complete', content: [{ type: 'text', text: 'ok' }] }
}

export async function startRecordingBackend(t: TeardownHost, tools: unknown[] = WHO): Promise<RecordingBackend> {
  const requests: RecordedRequest[] = []
  const server = createServer((req, res) => {
    let body = ''
    req.setEncoding('utf8').on('data', (c: string) => (body += c)).on('end', () => {
      const msg = JSON.parse(body) as { id: string; method: string; params?: ToolCall & { _meta?: Record<string, unknown> } }
      requests.push({ method: msg.method, headers: req.headers, meta: msg.params?._meta ?? {} })
      const refusal = msg.method === 'tools/call' ? headerRefusal(tools, msg.params ?? {}, req.headers) : undefined
      const failure = msg.method === 'tools/call' ? errorFor(tools, msg.params ?? {}) : undefined
      const reply = refusal !== undefined ? { error: { code: -32020, message: refusal } } : failure !== undefined ? { error: failure } : { result: resultFor(msg.method, tools, msg.params ?? {}) }
      res.writeHead(refusal === undefined ? 200 : 400, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, ...reply }))
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, requests }
}
