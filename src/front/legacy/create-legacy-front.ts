// The legacy era's front door (LEGACY-1, LEGACY-16), assembled from the app's shared parts: the one
// Router, the one Sealer, the one ListenHub, and the ports for state that changes (in memory for
// one replica; shared implementations plug in here for several).
import type { Tracing } from '../../observability/tracing.ts'
import type { Principal } from '../../auth/principal.ts'
import type { JsonObject } from '../../protocol/jsonrpc.ts'
import type { ServerInfo } from '../../protocol/result.ts'
import type { GatewayMetrics } from '../../observability/metrics.ts'
import type { ListenHub } from '../../routing/listen-hub.ts'
import type { Router } from '../../routing/router.ts'
import type { Sealer } from '../../routing/seal.ts'
import { MemoryEndedSessions, type EndedSessions } from '../../shared-state/ended-sessions.ts'
import { MemoryHandOff, type HandOff } from '../../shared-state/hand-off.ts'
import { MemorySessionRegistry, type SessionRegistry } from '../../shared-state/session-registry.ts'
import type { KeepAliveTicker } from '../keep-alive.ts'
import type { Access, McpPost } from '../mcp-handler.ts'
import type { ReplyStream, StreamQueueLimit } from '../reply-stream.ts'
import type { StreamSlots } from '../stream-slots.ts'
import type { Classified } from '../../protocol/jsonrpc.ts'
import { handleLegacyPost, type LegacyDeps } from './legacy-handler.ts'
import { handleSessionDelete, handleSessionGet, type SessionHttpRequest } from './session-http.ts'
import { SessionStreams } from './session-streams.ts'
import { LegacySessions } from './sessions.ts'

export interface LegacyFrontOptions {
  router: Router
  sealer: Sealer
  hub: ListenHub
  keepAlive: KeepAliveTicker
  metrics: GatewayMetrics
  capabilities: () => JsonObject
  serverInfo: ServerInfo
  sessionTtlMs: number
  clientAnswerTimeoutMs: number
  // The access line's client address from X-Forwarded-For.
  trustProxy?: boolean
  // Trace context and spans (README "Tracing").
  tracing?: Tracing
  // Long-lived streams per client and in all (README "Limits").
  streamSlots?: StreamSlots
  streamLimit?: StreamQueueLimit
  // Shared implementations for several replicas; in memory when absent.
  ports?: { ended?: EndedSessions; registry?: SessionRegistry; handOff?: HandOff }
}

export interface LegacyFront {
  post(post: McpPost, stream: ReplyStream, classified: Classified, principal?: Principal): Promise<Access>
  get(request: SessionHttpRequest): Promise<void>
  delete(request: SessionHttpRequest): Promise<void>
  // Shutdown: open GET streams end, so the server can close.
  close(): void
}

export function createLegacyFront(options: LegacyFrontOptions): LegacyFront {
  const registry = options.ports?.registry ?? new MemorySessionRegistry()
  const sessions = new LegacySessions({ sealer: options.sealer, ended: options.ports?.ended ?? new MemoryEndedSessions(), ttlMs: options.sessionTtlMs })
  const streams = new SessionStreams({ hub: options.hub, keepAlive: options.keepAlive, registry })
  const deps: LegacyDeps = {
    router: options.router,
    handOff: options.ports?.handOff ?? new MemoryHandOff(),
    clientAnswerTimeoutMs: options.clientAnswerTimeoutMs,
    tracing: options.tracing,
    sessions,
    registry,
    streams,
    capabilities: options.capabilities,
    serverInfo: options.serverInfo,
    sessionSeen: (id) => options.metrics.sessions.seen(id),
  }
  const http = { sessions, registry, streams, metrics: options.metrics, trustProxy: options.trustProxy, streamSlots: options.streamSlots, streamLimit: options.streamLimit }
  return {
    post: (post, stream, classified, principal) => handleLegacyPost(deps, post, stream, classified, principal),
    get: (request) => handleSessionGet(http, request),
    delete: (request) => handleSessionDelete(http, request),
    close: () => streams.endAll(),
  }
}
