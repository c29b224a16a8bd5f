// input_required ↔ server-initiated requests for legacy clients (LEGACY-16, MRTR-2/3/5, LEGACY-7). Pure.
// Each input request becomes a JSON-RPC request with a gateway-chosen id; the client's answers are
// gathered back under the input request keys.
import { isJsonObject, isJsonRpcId, type JsonObject, type JsonRpcErrorObject, type JsonRpcRequest } from '../jsonrpc.ts'
import { RESULT_TYPE } from '../result.ts'

export interface InputRound {
  // Keys → { method, params } as the router returned them; empty when only requestState came.
  inputRequests: JsonObject
  requestState: string | undefined
}

export interface ServerRequest {
  key: string
  message: JsonRpcRequest
}

export type ClientAnswer = { ok: true; result: JsonObject } | { ok: false; error: JsonRpcErrorObject }

// The round an input_required result asks for; undefined for any other result.
export function readInputRound(result: JsonObject): InputRound | undefined {
  if (result.resultType !== RESULT_TYPE.inputRequired) return undefined
  const inputRequests = isJsonObject(result.inputRequests) ? result.inputRequests : {}
  return { inputRequests, requestState: typeof result.requestState === 'string' ? result.requestState : undefined }
}

// MRTR-3 entries as server requests; an entry without a method string is skipped.
export function toServerRequests(inputRequests: JsonObject, nextId: () => string): ServerRequest[] {
  const requests: ServerRequest[] = []
  for (const [key, entry] of Object.entries(inputRequests)) {
    if (!isJsonObject(entry) || typeof entry.method !== 'string') continue
    const message: JsonRpcRequest = { jsonrpc: '2.0', id: nextId(), method: entry.method }
    if (isJsonObject(entry.params)) message.params = entry.params
    requests.push({ key, message })
  }
  return requests
}

// A JSON-RPC response body a client POSTed: its id and its answer; undefined when malformed.
export function readClientResponse(body: unknown): { id: string | number; answer: ClientAnswer } | undefined {
  if (!isJsonObject(body) || !isJsonRpcId(body.id)) return undefined
  if (isJsonObject(body.result)) return { id: body.id, answer: { ok: true, result: body.result } }
  const error = body.error
  if (isJsonObject(error) && typeof error.code === 'number' && typeof error.message === 'string') {
    return { id: body.id, answer: { ok: false, error: { code: error.code, message: error.message, data: error.data } } }
  }
  return undefined
}
