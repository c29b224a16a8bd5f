// The OpenTelemetry semantic conventions for MCP (GenAI conventions, "mcp.md") as the gateway applies
// them to its spans (otel-tracing.ts) and metrics (otel-metrics.ts): attribute names, what a call
// targets, and how its outcome becomes `error.type`. Pure: no SDK is loaded here.
import type { JsonObject } from '../protocol/jsonrpc.ts'
import type { TracedBackend } from './tracing.ts'

// Spelled out: the set is small and stable.
export const ATTR = {
  method: 'mcp.method.name',
  protocolVersion: 'mcp.protocol.version',
  sessionId: 'mcp.session.id',
  resourceUri: 'mcp.resource.uri',
  requestId: 'jsonrpc.request.id',
  toolName: 'gen_ai.tool.name',
  promptName: 'gen_ai.prompt.name',
  operation: 'gen_ai.operation.name',
  errorType: 'error.type',
  statusCode: 'rpc.response.status_code',
  transport: 'network.transport',
  peer: 'peer.service',
  serverAddress: 'server.address',
  serverPort: 'server.port',
} as const

export const EXECUTE_TOOL = 'execute_tool'
export const TOOL_ERROR = 'tool_error'

// What a call names: a tool or a prompt (a span name's target, a metric attribute), a resource URI
// (a span attribute only: URIs are not bounded).
export interface CallTarget {
  tool?: string
  prompt?: string
  uri?: string
}

export function targetOf(method: string, params: JsonObject): CallTarget | undefined {
  if (method === 'tools/call') return typeof params.name === 'string' ? { tool: params.name } : undefined
  if (method === 'prompts/get') return typeof params.name === 'string' ? { prompt: params.name } : undefined
  if (method === 'resources/read') return typeof params.uri === 'string' ? { uri: params.uri } : undefined
  return undefined
}

// `network.transport`: `pipe` for stdio, `tcp` for HTTP.
export function transportOf(backend: TracedBackend): 'pipe' | 'tcp' {
  return backend.config.transport === 'stdio' ? 'pipe' : 'tcp'
}

export interface Outcome {
  // error.type: the JSON-RPC error code, `tool_error` for an `isError` result.
  errorType?: string
  // rpc.response.status_code: the JSON-RPC error code.
  statusCode?: string
}

const OK: Outcome = {}

// A routed reply, or an upstream round (`{ kind: 'reply', reply }`, `{ kind: 'input' }`). A spliced
// result says `toolError` itself: reading its `result` would build the stamped object.
export function outcomeOf(outcome: unknown): Outcome {
  const round = outcome as { kind?: string; reply?: unknown } | undefined
  const reply = (round?.kind === 'reply' ? round.reply : outcome) as { ok?: boolean; error?: { code?: unknown }; result?: { isError?: unknown }; toolError?: boolean } | undefined
  if (reply === undefined || reply === null) return OK
  if (reply.ok === false) {
    const code = String(reply.error?.code)
    return { errorType: code, statusCode: code }
  }
  const toolError = reply.toolError ?? reply.result?.isError === true
  return toolError ? { errorType: TOOL_ERROR } : OK
}

// A call that got no answer: the gateway's failure reason (`timeout`, `unreachable`, ...).
export function failureType(err: unknown): string {
  const reason = (err as { reason?: unknown } | undefined)?.reason
  return typeof reason === 'string' ? reason : err instanceof Error ? err.name : 'error'
}

export function resourceAttributes(options: { serviceName?: string; version: string }): Record<string, string> {
  return { 'service.name': options.serviceName ?? 'mcp-gateway', 'service.version': options.version }
}
