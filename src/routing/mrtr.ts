// MRTR through the gateway (G8): backend requestState leaves sealed (MRTR-8/9): an HMAC over the
// backend's state, the caller, an expiry, the method and the name; a retry's state is verified and
// the backend gets its own state back byte for byte (MRTR-5, §27 item 18).
import { GatewayError } from '../errors.ts'
import type { JsonObject } from '../protocol/jsonrpc.ts'
import { isJsonObject } from '../protocol/jsonrpc.ts'
import { RESULT_TYPE } from '../protocol/result.ts'
import { BackendError } from '../upstream/backend.ts'
import type { Sealer } from './seal.ts'

export const ANONYMOUS = 'anonymous'
const STATE_FORMAT = 1

export interface StateBinding {
  method: string
  // The client-facing tool/prompt name or resource URI.
  name: string
  backend: string
  principal: string
}

export function sealRequestState(sealer: Sealer, binding: StateBinding, state: string, ttlMs: number): string {
  const { method, name, backend, principal } = binding
  return sealer.seal({ v: STATE_FORMAT, m: method, n: name, b: backend, p: principal, s: state, exp: Date.now() + ttlMs })
}

// Tampered, expired or bound to another caller, method, name or backend → -32602 (E22).
export function openRequestState(sealer: Sealer, binding: StateBinding, token: unknown): string {
  const payload = sealer.open(token)
  const matches = payload !== undefined && payload.v === STATE_FORMAT && payload.m === binding.method &&
    payload.n === binding.name && payload.b === binding.backend && payload.p === binding.principal
  if (!matches || typeof payload.s !== 'string') {
    throw new GatewayError('MCP_GATEWAY_STATE_INVALID', 'requestState is not valid for this request')
  }
  return payload.s
}

const INPUT_METHODS = new Map([
  ['elicitation/create', 'elicitation'],
  ['sampling/createMessage', 'sampling'],
  ['roots/list', 'roots'],
])

// MRTR-2/3/4: the shape a modern client must accept, and only capabilities it declared.
export function checkInputRequired(result: JsonObject, clientCapabilities: JsonObject, backend: string): void {
  const requests = result.inputRequests
  if (requests === undefined && typeof result.requestState !== 'string') {
    throw new BackendError(backend, 'bad_reply', 'input_required without inputRequests or requestState')
  }
  if (requests === undefined) return
  if (!isJsonObject(requests)) throw new BackendError(backend, 'bad_reply', 'inputRequests is not an object')
  for (const request of Object.values(requests)) {
    const capability = isJsonObject(request) && typeof request.method === 'string' ? INPUT_METHODS.get(request.method) : undefined
    if (capability === undefined) throw new BackendError(backend, 'bad_reply', 'input request of an unknown method')
    if (!isJsonObject(clientCapabilities[capability])) {
      throw new BackendError(backend, 'bad_reply', `input request needs the undeclared ${capability} capability`)
    }
  }
}

export function sealResult(sealer: Sealer, binding: StateBinding, result: JsonObject, ttlMs: number): JsonObject {
  if (result.resultType !== RESULT_TYPE.inputRequired || typeof result.requestState !== 'string') return result
  return { ...result, requestState: sealRequestState(sealer, binding, result.requestState, ttlMs) }
}
