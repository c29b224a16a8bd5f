// What a routed call carries between the front door, the router and the backend call: the
// client's side (CallContext) and the backend's (Forward).
import type { JsonObject, JsonRpcNotification } from '../protocol/jsonrpc.ts'
import type { Principal } from '../auth/principal.ts'
import type { RequestTrace } from '../observability/tracing.ts'
import type { BackendEntry } from './backend-set.ts'
import type { BridgeHandle, StateBinding } from './mrtr.ts'
import type { CancelSignal } from '../upstream/shared/cancel-signal.ts'

export interface CallContext {
  signal: CancelSignal
  onNotification: (notification: JsonRpcNotification) => void
  // Who is calling (authentication); absent: anonymous.
  principal?: Principal
  // The client's address: the key of per-client limits and fair scheduling while the caller is
  // anonymous (an authenticated caller is keyed by its principal).
  client?: string
  // Trace context to pass on, and spans when tracing is on (README "Tracing"); absent: nothing to do.
  trace?: RequestTrace
  // Set by the router for the access log and metrics: the backend, and the tool, prompt or URI asked for.
  backend?: string
  tool?: string
  // The tool's name at its backend, once the catalogue resolved it (a bounded metric label).
  upstreamTool?: string
}

export interface Forward {
  entry: BackendEntry
  params: JsonObject
  headers?: Record<string, string>
  // MRTR-capable methods: what sealed requestState is bound to.
  binding?: StateBinding
  // A retry of a bridged legacy call: the held call to resume instead of a new upstream request.
  resume?: BridgeHandle
  // On whose behalf (sealed-state binding, the backend's credential).
  principal?: Principal
}

// The backend's side of one call, before its signal and notification sink are added.
export interface Upstream {
  method: string
  params: JsonObject
  headers?: Record<string, string>
  principal?: Principal
  // Who the call is counted against in the fair scheduler (callerKey).
  client: string
  // The result goes on to the client (UpstreamCall.passOn).
  passOn: boolean
}
