// Legacy GET streams (LEGACY-9/10, LEGACY-16): one per session, carrying what belongs to no request —
// list changes from the backends, resources/updated for the session's subscriptions, and the
// backends' logs outside any request at the session's logging/setLevel level (LOG-2, LOG-5) —
// fanned in by the one ListenHub, without subscription ids, with keep-alive comments (SSE-5). The
// streams open on this replica are held here; which sessions have one is the registry's
// (LEGACY-10). A level set on another replica reaches a stream here when it re-opens.
import type { ServerResponse } from 'node:http'
import { GatewayError } from '../../errors.ts'
import type { JsonObject, JsonRpcNotification, JsonRpcRequest } from '../../protocol/jsonrpc.ts'
import { toLegacyNotification } from '../../protocol/legacy/result.ts'
import type { SessionClaims } from '../../protocol/legacy/session-token.ts'
import type { LogLevel } from '../../protocol/meta.ts'
import { canSubscribeResources, listChangeOf } from '../../protocol/subscriptions.ts'
import type { ListenHub } from '../../routing/listen-hub.ts'
import type { SessionRegistry } from '../../shared-state/session-registry.ts'
import type { KeepAliveTicker } from '../keep-alive.ts'
import { isDeliverable } from '../notifications.ts'
import type { ReplyStream } from '../reply-stream.ts'

export interface SessionStreamsOptions {
  hub: ListenHub
  keepAlive: KeepAliveTicker
  registry: SessionRegistry
}

class OpenStream {
  readonly stream: ReplyStream
  readonly res: ServerResponse
  #unsubscribe: () => void = () => {}
  #routing: Promise<void> = Promise.resolve()
  // The session's logging/setLevel level; no logs while unset (LOG-2).
  logLevel: LogLevel | undefined

  constructor(stream: ReplyStream, res: ServerResponse) {
    this.stream = stream
    this.res = res
  }

  // Subscriptions changed: the new hub subscription is taken before the old one is let go, so no
  // upstream listen that both need closes in between. Changes apply in order.
  route(hub: ListenHub, uris: readonly string[]): Promise<void> {
    this.#routing = this.#routing.then(async () => {
      const routes = uris.length === 0 ? [] : await hub.routeResources(uris)
      if (this.res.destroyed) return
      const client = {
        wants: (n: JsonRpcNotification) => listChangeOf(n.method) !== undefined || isDeliverable(n, { progressToken: undefined, logLevel: this.logLevel }),
        deliver: (n: JsonRpcNotification) => this.stream.notify(toLegacyNotification(n)),
      }
      const previous = this.#unsubscribe
      this.#unsubscribe = hub.subscribe(client, routes)
      previous()
    })
    return this.#routing
  }

  stop(): void {
    this.#unsubscribe()
    this.#unsubscribe = () => {}
  }
}

export class SessionStreams {
  readonly #options: SessionStreamsOptions
  readonly #open = new Map<string, OpenStream>()

  constructor(options: SessionStreamsOptions) {
    this.#options = options
  }

  // Serves the session's GET stream until the client leaves or the gateway ends it; `onOpen` once
  // it delivers (its subscriptions routed).
  async serve(session: SessionClaims, stream: ReplyStream, res: ServerResponse, onOpen: () => void): Promise<void> {
    const open = new OpenStream(stream, res)
    this.#open.set(session.id, open)
    stream.openStream()
    const stopKeepAlive = this.#options.keepAlive.add(stream)
    const closed = new Promise<void>((resolve) => res.once('close', resolve))
    try {
      const state = await this.#options.registry.read(session.id)
      open.logLevel = state.logLevel
      await open.route(this.#options.hub, state.subscriptions)
      onOpen()
      await closed
    } finally {
      stopKeepAlive()
      open.stop()
      if (this.#open.get(session.id) === open) this.#open.delete(session.id)
      await this.#options.registry.releaseStream(session.id)
    }
  }

  // The session's subscriptions after a change; its stream on this replica follows.
  async reroute(sessionId: string, uris: readonly string[]): Promise<void> {
    await this.#open.get(sessionId)?.route(this.#options.hub, uris)
  }

  // The session's level after logging/setLevel; its stream on this replica follows.
  setLogLevel(sessionId: string, level: LogLevel): void {
    const open = this.#open.get(sessionId)
    if (open !== undefined) open.logLevel = level
  }

  async canSubscribe(uri: string): Promise<boolean> {
    return (await this.#options.hub.routeResources([uri])).length > 0
  }

  // DELETE, or the gateway closing: the stream ends (the client reconnects or not).
  end(sessionId: string): void {
    const open = this.#open.get(sessionId)
    if (open !== undefined && !open.res.writableEnded) open.res.end()
  }

  endAll(): void {
    for (const sessionId of [...this.#open.keys()]) this.end(sessionId)
  }
}

export interface SubscriptionDeps {
  registry: SessionRegistry
  streams: SessionStreams
  capabilities: () => JsonObject
}

// resources/subscribe and resources/unsubscribe (LEGACY-16): session state, delivered on the GET stream.
export async function changeSubscription(deps: SubscriptionDeps, session: SessionClaims, request: JsonRpcRequest): Promise<GatewayError | undefined> {
  if (!canSubscribeResources(deps.capabilities())) return new GatewayError('MCP_GATEWAY_METHOD_NOT_FOUND', `${request.method}: no backend offers resource subscriptions`)
  const uri = request.params?.uri
  if (typeof uri !== 'string') return new GatewayError('MCP_GATEWAY_PARAMS_INVALID', 'uri must be a string')
  let uris: readonly string[] | undefined
  if (request.method === 'resources/unsubscribe') uris = await deps.registry.unsubscribe(session.id, uri)
  else {
    if (!(await deps.streams.canSubscribe(uri))) return new GatewayError('MCP_GATEWAY_PARAMS_INVALID', `no backend can subscribe to ${uri}`)
    uris = await deps.registry.subscribe(session.id, uri, session.expiresAt)
    if (uris === undefined) return new GatewayError('MCP_GATEWAY_PARAMS_INVALID', 'too many subscriptions in this session')
  }
  await deps.streams.reroute(session.id, uris)
  return undefined
}
