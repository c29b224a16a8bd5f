// JSON-RPC 2.0 message shapes and classification (HTTP-4, RPC-1, RPC-3). Pure, no I/O.
export type JsonRpcId = string | number
export type JsonObject = Record<string, unknown>

export interface JsonRpcRequest {
  jsonrpc: '2.0'
  id: JsonRpcId
  method: string
  params?: JsonObject
}

export interface JsonRpcNotification {
  jsonrpc: '2.0'
  method: string
  params?: JsonObject
}

export interface JsonRpcErrorObject {
  code: number
  message: string
  data?: unknown
}

export interface JsonRpcResultResponse {
  jsonrpc: '2.0'
  id: JsonRpcId
  result: JsonObject
}

export interface JsonRpcErrorResponse {
  jsonrpc: '2.0'
  id?: JsonRpcId | null
  error: JsonRpcErrorObject
}

export type JsonRpcResponse = JsonRpcResultResponse | JsonRpcErrorResponse

export type Classified =
  | { kind: 'request'; message: JsonRpcRequest }
  | { kind: 'notification'; message: JsonRpcNotification }
  | { kind: 'response'; id: JsonRpcId | undefined }
  | { kind: 'invalid'; id: JsonRpcId | undefined; reason: string }

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

export function isJsonRpcId(value: unknown): value is JsonRpcId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value))
}

// HTTP-4: one request or notification per body; never a batch, never a response.
export function classifyMessage(body: unknown): Classified {
  if (Array.isArray(body)) return { kind: 'invalid', id: undefined, reason: 'batches are not supported' }
  if (!isJsonObject(body)) return { kind: 'invalid', id: undefined, reason: 'body is not a JSON object' }
  const id = isJsonRpcId(body.id) ? body.id : undefined
  if (body.jsonrpc !== '2.0') return { kind: 'invalid', id, reason: 'jsonrpc must be "2.0"' }
  if (body.params !== undefined && !isJsonObject(body.params)) {
    return { kind: 'invalid', id, reason: 'params must be an object' }
  }
  if (typeof body.method !== 'string') {
    if ('result' in body || 'error' in body) return { kind: 'response', id }
    return { kind: 'invalid', id, reason: 'method must be a string' }
  }
  if (!('id' in body)) return { kind: 'notification', message: body as unknown as JsonRpcNotification }
  // RPC-1: id is a string or an integer, never null.
  if (id === undefined) return { kind: 'invalid', id: undefined, reason: 'id must be a string or an integer' }
  return { kind: 'request', message: body as unknown as JsonRpcRequest }
}

export function isErrorResponse(response: JsonRpcResponse): response is JsonRpcErrorResponse {
  return 'error' in response
}
