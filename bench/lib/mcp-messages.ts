// Requests shaped as real clients send them: 2026-07-28 (per-request `_meta` mirrored in
// headers) and 2025-11-25 (session header after an initialize handshake) for the peers that
// only keep one child per session.
export type Json = Record<string, unknown>

export const MODERN_VERSION = '2026-07-28'
export const LEGACY_VERSION = '2025-11-25'
const ACCEPT = 'application/json, text/event-stream'
const CLIENT_INFO = { name: 'mcp-gateway-bench', version: '1.0.0' }

export interface OutgoingRequest {
  headers: Record<string, string>
  body: string
}

// A legacy session: ids and tokens must be unique across everything in flight on it.
export interface LegacySession {
  sessionId: string
  protocolVersion: string
}

export interface CallSpec {
  id: number
  tool: string
  args: Json
  progressToken?: string
}

function createModernMeta(progressToken: string | undefined): Json {
  const meta: Json = {
    'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
    'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
    'io.modelcontextprotocol/clientCapabilities': {}
  }
  if (progressToken !== undefined) meta.progressToken = progressToken
  return meta
}

export interface ModernExtras {
  name?: string
  progressToken?: string
}

export function createModernRequest(id: number, method: string, params: Json = {}, extras: ModernExtras = {}): OutgoingRequest {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: ACCEPT,
    'mcp-protocol-version': MODERN_VERSION,
    'mcp-method': method
  }
  if (extras.name !== undefined) headers['mcp-name'] = extras.name
  const body = { jsonrpc: '2.0', id, method, params: { ...params, _meta: createModernMeta(extras.progressToken) } }
  return { headers, body: JSON.stringify(body) }
}

export function createModernToolCall(call: CallSpec): OutgoingRequest {
  const params: Json = { name: call.tool, arguments: call.args }
  return createModernRequest(call.id, 'tools/call', params, { name: call.tool, progressToken: call.progressToken })
}

export function createModernListen(id: number): OutgoingRequest {
  return createModernRequest(id, 'subscriptions/listen', { notifications: { toolsListChanged: true } })
}

export function createLegacyRequest(id: number | undefined, method: string, params: Json, session?: LegacySession): OutgoingRequest {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: ACCEPT }
  if (session) {
    headers['mcp-session-id'] = session.sessionId
    headers['mcp-protocol-version'] = session.protocolVersion
  }
  const body = id === undefined ? { jsonrpc: '2.0', method, params } : { jsonrpc: '2.0', id, method, params }
  return { headers, body: JSON.stringify(body) }
}

export function createLegacyInitialize(id: number): OutgoingRequest {
  return createLegacyRequest(id, 'initialize', { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo: CLIENT_INFO })
}

export function createLegacyToolCall(call: CallSpec, session: LegacySession): OutgoingRequest {
  const params: Json = { name: call.tool, arguments: call.args }
  if (call.progressToken !== undefined) params._meta = { progressToken: call.progressToken }
  return createLegacyRequest(call.id, 'tools/call', params, session)
}
