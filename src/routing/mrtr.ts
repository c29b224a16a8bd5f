// MRTR through the gateway: backend requestState leaves sealed (MRTR-8/9, AES-256-GCM in
// seal.ts) together with the caller, an expiry, the method, the name and the backend; a retry's state is verified and
// the backend gets its own state back byte for byte (MRTR-5, MRTR-7). A bridged legacy call's
// state carries the handle of the held call instead (LEGACY-C5). Every
// sealed state carries a random token id, so a replay store can make it single use (MRTR-9).
import { randomBytes } from 'node:crypto'
import { GatewayError } from '../errors.ts'
import type { JsonObject } from '../protocol/jsonrpc.ts'
import { isJsonObject } from '../protocol/jsonrpc.ts'
import { RESULT_TYPE } from '../protocol/result.ts'
import { BackendError } from '../upstream/backend.ts'
import type { ReplayStore } from './replay-store.ts'
import type { Sealer } from './seal.ts'

export const ANONYMOUS = 'anonymous'
// 2: with a token id (`t`) for single use; format-1 tokens (none) are refused.
const STATE_FORMAT = 2
const TOKEN_ID_BYTES = 12

export interface StateBinding {
  method: string
  // The client-facing tool/prompt name or resource URI.
  name: string
  backend: string
  principal: string
}

// What a retry's sealed state opens to: the backend's own state (pass-through), or the handle of a
// call the gateway holds while a legacy backend waits for input (bridging, LEGACY-C5).
// Or, after a legacy backend's URL elicitation (url-elicitation.ts), the call to send once more.
export type OpenedState =
  | { kind: 'backend'; state: string; use: StateUse }
  | { kind: 'bridge'; handle: BridgeHandle; use: StateUse }
  | { kind: 'again'; use: StateUse }

// What makes a state single use (MRTR-9): its token id, claimed once, until the token expires.
export interface StateUse {
  tokenId: string
  expiresAtMs: number
}

export interface BridgeHandle {
  id: string
  // Which input round the state was issued for: an older round's state is stale (single use, MRTR-9).
  round: number
  // The replica holding the call (several replicas, bridge-relay.ts); absent: this one.
  holder?: string
}

// What sealed state is bound to (MRTR-8/9) and how long it lives.
export interface StateSeal {
  sealer: Sealer
  binding: StateBinding
  ttlMs: number
}

function sealBound(seal: StateSeal, inner: JsonObject): string {
  const { method, name, backend, principal } = seal.binding
  const t = randomBytes(TOKEN_ID_BYTES).toString('base64url')
  return seal.sealer.seal({ v: STATE_FORMAT, t, m: method, n: name, b: backend, p: principal, ...inner, exp: Date.now() + seal.ttlMs }, seal.ttlMs)
}

export function sealRequestState(seal: StateSeal, state: string): string {
  return sealBound(seal, { s: state })
}

export function sealBridgeState(seal: StateSeal, handle: BridgeHandle): string {
  return sealBound(seal, handle.holder === undefined ? { g: handle.id, r: handle.round } : { g: handle.id, r: handle.round, h: handle.holder })
}

export function sealAgainState(seal: StateSeal): string {
  return sealBound(seal, { a: 1 })
}

// Tampered, expired or bound to another caller, method, name or backend → -32602 (MRTR-8, MRTR-9). Whether
// it was used already is the replay store's to say (the router claims `use`).
export function openRequestState(sealer: Sealer, binding: StateBinding, token: unknown): OpenedState {
  const payload = sealer.open(token)
  const matches = payload !== undefined && payload.v === STATE_FORMAT && payload.m === binding.method &&
    payload.n === binding.name && payload.b === binding.backend && payload.p === binding.principal &&
    typeof payload.t === 'string' && typeof payload.exp === 'number'
  if (matches) {
    const use = { tokenId: payload.t as string, expiresAtMs: payload.exp as number }
    if (typeof payload.s === 'string') return { kind: 'backend', state: payload.s, use }
    if (payload.a === 1) return { kind: 'again', use }
    if (typeof payload.g === 'string' && Number.isInteger(payload.r)) {
      const handle: BridgeHandle = { id: payload.g, round: payload.r as number }
      if (typeof payload.h === 'string') handle.holder = payload.h
      return { kind: 'bridge', handle, use }
    }
  }
  throw new GatewayError('MCP_GATEWAY_STATE_INVALID', 'requestState is not valid for this request')
}

// MRTR-9: a backend's state is passed on once; a replay, on any replica sharing the store, is
// refused (-32602), after `onReplay` (which counts it).
export async function claimState(replays: ReplayStore, use: StateUse, onReplay: () => void): Promise<void> {
  if (await replays.claim(use.tokenId, use.expiresAtMs)) return
  onReplay()
  throw new GatewayError('MCP_GATEWAY_STATE_INVALID', 'requestState was already used; a retry carries the state of the latest round, once')
}

// The held call a bridge state names, its binding unchecked: only for state the gateway issued and
// kept itself (a legacy client's rounds, LEGACY-16), never for state a client sent.
export function bridgeHandleIdOf(sealer: Sealer, token: unknown): string | undefined {
  const payload = sealer.open(token)
  return payload?.v === STATE_FORMAT && typeof payload.g === 'string' ? payload.g : undefined
}

const INPUT_METHODS = new Map([
  ['elicitation/create', 'elicitation'],
  ['sampling/createMessage', 'sampling'],
  ['roots/list', 'roots'],
])

// MRTR-4, CAP-2: why the client cannot be sent this input request, or undefined when it can.
// `elicitation: {}` means form mode only; tool-enabled sampling needs `sampling.tools`.
export function findUndeclaredCapability(method: unknown, params: unknown, clientCapabilities: JsonObject): string | undefined {
  const capability = typeof method === 'string' ? INPUT_METHODS.get(method) : undefined
  if (capability === undefined) return 'input request of an unknown method'
  const declared = clientCapabilities[capability]
  if (!isJsonObject(declared)) return `input request needs the undeclared ${capability} capability`
  const p = isJsonObject(params) ? params : {}
  if (capability === 'elicitation') {
    const mode = p.mode ?? 'form'
    const modes: JsonObject = 'form' in declared || 'url' in declared ? declared : { form: {} }
    if ((mode !== 'form' && mode !== 'url') || !isJsonObject(modes[mode])) return `elicitation in ${String(mode)} mode was not declared`
  }
  if (capability === 'sampling' && (p.tools !== undefined || p.toolChoice !== undefined) && !isJsonObject(declared.tools)) {
    return 'sampling with tools needs the undeclared sampling.tools capability'
  }
  return undefined
}

// MRTR-2/3/4: the shape a modern client must accept, and only capabilities it declared.
export function checkInputRequired(result: JsonObject, clientCapabilities: JsonObject, backend: string): void {
  const requests = result.inputRequests
  if (requests === undefined && typeof result.requestState !== 'string') {
    throw new BackendError(backend, 'bad_reply', 'input_required without inputRequests or requestState')
  }
  if (requests === undefined) return
  if (!isJsonObject(requests)) throw new BackendError(backend, 'bad_reply', 'inputRequests is not an object')
  for (const request of Object.values(requests)) {
    const entry = isJsonObject(request) ? request : {}
    const problem = findUndeclaredCapability(entry.method, entry.params, clientCapabilities)
    if (problem !== undefined) throw new BackendError(backend, 'bad_reply', problem)
  }
}

export function sealResult(seal: StateSeal, result: JsonObject): JsonObject {
  if (result.resultType !== RESULT_TYPE.inputRequired || typeof result.requestState !== 'string') return result
  return { ...result, requestState: sealRequestState(seal, result.requestState) }
}
