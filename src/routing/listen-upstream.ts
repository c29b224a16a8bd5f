// The listen hub's records (listen-hub.ts): a client's subscription, and an upstream listen stream
// kept open (re-opened with backoff) until stopped, for a backend's lists or for one resource URI.
import type { JsonObject, JsonRpcNotification } from '../protocol/jsonrpc.ts'
import type { ListRefresher } from './list-refresh.ts'
import type { BackendEntry } from './backend-set.ts'

export interface ClientSubscription {
  // List changes this client asked for (SUB-2), logs at its level; resource updates go by its routes.
  wants(notification: JsonRpcNotification): boolean
  deliver(notification: JsonRpcNotification): void
}

// One upstream listen stream, kept open (re-opened with backoff) until stopped.
export interface Upstream {
  readonly entry: BackendEntry
  // What to ask for; undefined while the backend cannot be asked (down, no capability yet).
  readonly filter: () => JsonObject | undefined
  readonly onNotification: (notification: JsonRpcNotification) => void
  // List upstreams only: the backend's logs outside any request.
  readonly onLog?: (notification: JsonRpcNotification) => void
  close?: () => void
  timer?: NodeJS.Timeout
  stopped: boolean
  // Established at least once before: a later establishment follows a gap (a drop or a restart).
  established?: boolean
  // The backend answered without a stream (ListenSink.onUnsupported) and has not streamed since.
  unsupported?: boolean
  // While unsupported, list upstreams only: the timer standing in for the backend's list changes.
  refresher?: ListRefresher
}

export interface ResourceListen extends Upstream {
  readonly uri: string
  readonly clients: Set<ClientSubscription>
}
