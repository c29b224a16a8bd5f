// Dispatch: gateway-owned methods answer from the catalog; routed methods go to the
// owning backend with the name mapped back; every result is stamped for a modern client.
import type { Logger } from '../observability/logger.ts'
import { GatewayError } from '../errors.ts'
import { isJsonObject, type JsonObject, type JsonRpcErrorObject } from '../protocol/jsonrpc.ts'
import { replyFromBackendError, replyFromBackendRpcError, replyFromGatewayError, type RouteReply } from './route-replies.ts'
import { ReplyStamp } from './reply-stamp.ts'
import { isUnknownResultType, RESULT_TYPE, type ServerInfo } from '../protocol/result.ts'
import type { ValidRequest } from '../protocol/validate.ts'
import { BackendError, type UpstreamReply } from '../upstream/backend.ts'
import { listAggregated, MergedLists } from './aggregate.ts'
import type { BackendSet } from './backend-set.ts'
import type { Catalog } from './catalog.ts'
import { buildDiscoverResult, requireCapability } from './discover.ts'
import { LIST_KINDS } from './list-kinds.ts'
import { resolveName, resolveUri, type Target } from './resolve.ts'
import type { Sealer } from './seal.ts'
import type { UpstreamParamsBuilder } from './upstream-params.ts'
import { ANONYMOUS, bridgeHandleIdOf, checkInputRequired, claimState, openRequestState, sealBridgeState, sealResult, type StateBinding } from './mrtr.ts'
import { Bridge, DEFAULT_BRIDGE_HOLD_MS, type BridgeHooks, type Round } from './bridge.ts'
import { BridgeRelay, type RelayChannel } from './bridge-relay.ts'
import { ToolHeaders } from './tool-headers.ts'
import { isHeaderRefusal, retryHeaderRefusal } from './header-retry.ts'
import { urlElicitationRound } from './url-elicitation.ts'
import { getProgressToken, META } from '../protocol/meta.ts'
import { ANONYMOUS as NOBODY, type Principal } from '../auth/principal.ts'
import { policyKindOf, type RouteAccess } from './access.ts'
import { LIMIT, type LimitName } from '../observability/metrics.ts'
import type { ReplayStore } from './replay-store.ts'
import { BackendSchedulers, callerKey, type CallLimits } from './call-scheduler.ts'
import { requireString, resolveCompletion } from './completion-target.ts'
import { observeRouted, type CallObservers } from './call-outcome.ts'
import type { CallContext, Forward, Upstream } from './call-context.ts'
import { clockMs } from '../observability/clock.ts'

export interface RouterDeps extends CallObservers {
  backends: BackendSet
  catalog: Catalog
  sealer: Sealer
  params: UpstreamParamsBuilder
  logger: Logger
  serverInfo: ServerInfo
  listen: boolean
  stateTtlMs: number
  acceptTool?: (tool: JsonObject, backend: string) => boolean
  pageSize: number
  // Per-caller policy (absent: everyone may use everything).
  access?: RouteAccess
  // MRTR-9: single use of sealed requestState.
  replays: ReplayStore
  // Every refusal by a gateway limit is counted (mcp_gateway_limit_refusals_total).
  countRefusal?: (limit: LimitName, backend: string) => void
  // Per-client concurrency, queue length and wait of the calls to each backend.
  limits: CallLimits
  // Several replicas: the hand-off port, for MRTR retries of a call held by another replica.
  handOff?: RelayChannel
}

const LIMIT_REASONS: ReadonlySet<string> = new Set<string>([LIMIT.queueFull, LIMIT.queueTimeout, LIMIT.replyBudget])

export { replyFromBackendError, replyFromBackendRpcError, replyFromGatewayError, type RouteReply } from './route-replies.ts'
export type { CallContext } from './call-context.ts'

export class Router {
  readonly #toolHeaders = new ToolHeaders()
  readonly #deps: RouterDeps
  readonly #bridge: Bridge
  readonly #relay: BridgeRelay | undefined
  // Merged lists of the current catalog generation (paging a large list merges it once).
  readonly #merged = new MergedLists()
  // Fair scheduling of each backend's calls (README "Limits").
  readonly schedulers: BackendSchedulers
  // How long a bridged call waits for the client's retry: the state's lifetime, capped, since a
  // held call ties up a backend request (LEGACY-C5). Held calls are per replica: see bridge.ts.
  readonly #holdMs: number
  #anonymous: (RouterDeps & { principal: Principal }) | undefined
  readonly #replies: ReplyStamp

  constructor(deps: RouterDeps) {
    this.#deps = deps
    this.#holdMs = Math.min(deps.stateTtlMs, DEFAULT_BRIDGE_HOLD_MS)
    this.#replies = new ReplyStamp(deps.serverInfo)
    this.#relay = deps.handOff?.holder === undefined ? undefined : new BridgeRelay(deps.handOff, this.#holdMs)
    this.#bridge = new Bridge({ holdMs: this.#holdMs, logger: deps.logger, relay: this.#relay })
    this.schedulers = new BackendSchedulers(deps.backends.entries, deps.limits)
  }

  // Held MRTR bridge calls end with the gateway (before the backends close).
  close(): void {
    this.#bridge.close()
  }

  // LEGACY-16: a legacy client will not finish an input round (timeout, cancel, disconnect): the held
  // bridge call its sealed state names, if any, is cancelled upstream now, not at the hold's end.
  abandon(requestState: unknown, reason: string): void {
    const id = bridgeHandleIdOf(this.#deps.sealer, requestState)
    if (id !== undefined) this.#bridge.cancel(id, reason)
  }

  async handle(valid: ValidRequest, ctx: CallContext): Promise<RouteReply> {
    const started = clockMs()
    let reply: RouteReply
    try {
      reply = await this.#dispatch(valid, ctx)
    } catch (err) {
      reply = this.#failed(err, ctx)
    }
    observeRouted(this.#deps, ctx, reply, started) // mcp_gateway_tool_call_duration_seconds, mrtr_rounds_total
    return reply
  }

  // A gateway or backend failure as the reply; anything else is a bug and goes up.
  #failed(err: unknown, ctx: CallContext): RouteReply {
    if (err instanceof GatewayError) return replyFromGatewayError(err)
    if (err instanceof BackendError) {
      ctx.backend ??= err.backend
      if (LIMIT_REASONS.has(err.reason)) this.#deps.countRefusal?.(err.reason as LimitName, err.backend)
      return replyFromBackendError(err)
    }
    throw err
  }

  // Throws or answers at once for what the gateway decides itself; waits for the rest.
  #dispatch(valid: ValidRequest, ctx: CallContext): RouteReply | Promise<RouteReply> {
    const { method } = valid.request
    requireCapability(this.#deps.backends, method, { listen: this.#deps.listen })
    if (method === 'server/discover') return this.#replies.complete(valid, buildDiscoverResult(this.#deps.backends, { listen: this.#deps.listen }))
    const kind = LIST_KINDS.get(method)
    const deps = this.#depsFor(ctx.principal ?? NOBODY)
    if (kind) {
      const view = { binding: deps.principal.binding, visible: this.#deps.access?.visibility(deps.principal, policyKindOf(kind)) }
      // The merged list is the same for every caller unless the policy filters it for this one.
      const mergedKey = view.visible ? deps.principal.cacheKey : ''
      return listAggregated({ ...deps, view, merged: this.#merged, mergedKey }, kind, valid.params).then((list) => this.#replies.complete(valid, list))
    }
    // The common call resolves from the cached lists without waiting (resolve.ts).
    const forward = this.#target(valid, ctx, deps)
    return forward instanceof Promise ? forward.then((settled) => this.#forward(valid, settled, ctx)) : this.#forward(valid, forward, ctx)
  }

  // The caller's view of the catalog (CACHE-12) and who sealed state is bound to (MRTR-9).
  // The anonymous caller's is built once.
  #depsFor(principal: Principal): RouterDeps & { principal: Principal } {
    if (principal === NOBODY) return (this.#anonymous ??= this.#viewFor(NOBODY))
    return this.#viewFor(principal)
  }

  #viewFor(principal: Principal): RouterDeps & { principal: Principal } {
    return { ...this.#deps, catalog: this.#deps.catalog.forPrincipal(principal), principal }
  }

  // AUTH-9: what the policy keeps from this caller is refused before it is looked up.
  #allow(principal: Principal, kind: 'tools' | 'prompts' | 'resources', name: string): void {
    const refusal = this.#deps.access?.forbid(principal, kind, name)
    if (refusal) throw refusal
  }

  #target(valid: ValidRequest, ctx: CallContext, deps: RouterDeps & { principal: Principal }): Forward | Promise<Forward> {
    const p = valid.params
    switch (valid.request.method) {
      case 'tools/call':
      case 'prompts/get': {
        const name = requireString(p.name, 'name')
        const isTool = valid.request.method === 'tools/call'
        // Set first: the access line names what was asked even when no owner is found.
        ctx.tool = name
        this.#allow(deps.principal, isTool ? 'tools' : 'prompts', name)
        const target = resolveName(deps, { kind: isTool ? 'tools' : 'prompts', name })
        const named = (found: Target): Forward | Promise<Forward> => {
          if (isTool) ctx.upstreamTool = found.name
          const headers = isTool ? this.#toolHeaders.forCall(valid, found.item) : undefined
          return this.#withState(valid, { entry: found.entry, params: { name: found.name }, headers, principal: deps.principal }, name)
        }
        return target instanceof Promise ? target.then(named) : named(target)
      }
      case 'resources/read': {
        const uri = requireString(p.uri, 'uri')
        ctx.tool = uri
        this.#allow(deps.principal, 'resources', uri)
        return resolveUri(deps, uri).then((entry) => this.#withState(valid, { entry, params: {}, principal: deps.principal }, uri))
      }
      case 'completion/complete':
        return this.#completionTarget(p, deps)
      default:
        throw new GatewayError('MCP_GATEWAY_METHOD_NOT_FOUND', valid.request.method)
    }
  }

  // MRTR-5/8/9: a retry's sealed state is opened, must be bound to this request and caller, and is
  // used once. Waits only for a retry's state to be claimed.
  #withState(valid: ValidRequest, forward: Forward, name: string): Forward | Promise<Forward> {
    const principal = forward.principal?.binding ?? ANONYMOUS
    const binding: StateBinding = { method: valid.request.method, name, backend: forward.entry.backend.name, principal }
    const overrides: JsonObject = { ...forward.params }
    const built = (): Forward => ({ ...forward, params: this.#deps.params.forCall(forward.entry.backend, valid.params, overrides), binding })
    if (valid.params.requestState === undefined) return built()
    const opened = openRequestState(this.#deps.sealer, binding, valid.params.requestState)
    // A bridge handle is single use by the bridge itself (its round, on the holding replica).
    if (opened.kind === 'bridge') return { ...forward, binding, resume: opened.handle }
    return claimState(this.#deps.replays, opened.use, () => this.#deps.countRefusal?.(LIMIT.stateReplay, binding.backend)).then(() => {
      // `again` (url-elicitation.ts): the call as first sent; members set to undefined are not serialised.
      Object.assign(overrides, opened.kind === 'backend' ? { requestState: opened.state } : { requestState: undefined, inputResponses: undefined })
      return built()
    })
  }

  async #completionTarget(p: JsonObject, deps: RouterDeps & { principal: Principal }): Promise<Forward> {
    const allow = (kind: 'prompts' | 'resources', name: string): void => this.#allow(deps.principal, kind, name)
    return { ...await resolveCompletion({ ...deps, allow }, p), principal: deps.principal }
  }

  async #forward(valid: ValidRequest, forward: Forward, ctx: CallContext): Promise<RouteReply> {
    const backend = forward.entry.backend
    ctx.backend = backend.name
    // TRACE-2: the trace context in the backend's _meta and headers (a client span when tracing is on).
    const traced = ctx.trace?.upstream(forward.entry, valid.request.method, forward.params)
    const upstream: Upstream = {
      method: valid.request.method, params: traced ? traced.params(forward.params) : forward.params, headers: traced ? traced.headers(forward.headers) : forward.headers,
      principal: forward.principal, client: callerKey(forward.principal, ctx.client), passOn: true,
    }
    let reply: UpstreamReply
    // Only a legacy backend can ask mid-call; modern ones answer input_required themselves.
    if (valid.spec.mrtr && forward.binding !== undefined && (forward.resume !== undefined || backend.status().era === 'legacy')) {
      const pending = this.#bridged(valid, forward, ctx, upstream)
      const round = await (traced ? traced.watch(pending) : pending)
      if (round.kind === 'input') return this.#replies.complete(valid, this.#bridgeResult(forward, round))
      reply = round.reply
    } else {
      // Fair scheduling (README "Limits"); the wait for a slot is not part of the call's timeout.
      const call = { ...upstream, signal: ctx.signal, onNotification: ctx.onNotification }
      const send = (sent: typeof call): Promise<UpstreamReply> => this.schedulers.run(backend.name, sent, () => backend.request(sent))
      reply = await (traced ? traced.watch(send(call)) : send(call))
      if (isHeaderRefusal(valid, reply)) {
        const resend = (headers: Record<string, string>) => send({ ...call, headers: traced ? traced.headers(headers) : headers })
        reply = await retryHeaderRefusal({ catalog: this.#deps.catalog.forPrincipal(forward.principal ?? NOBODY), toolHeaders: this.#toolHeaders, resend }, valid, forward, reply)
      }
    }
    return this.#answer(valid, forward, reply)
  }

  // The backend's reply as the client's: its error passed on (ERR-5), its result stamped, an
  // input_required result checked and sealed (MRTR-1).
  #answer(valid: ValidRequest, forward: Forward, reply: UpstreamReply): RouteReply {
    if (!reply.ok) {
      const round = this.#urlRound(valid, forward, reply.error)
      return round === undefined ? replyFromBackendRpcError(reply.error, valid.params) : this.#replies.complete(valid, round)
    }
    const { scan } = reply
    const resultType = scan === undefined ? reply.result.resultType : scan.resultType
    const backend = forward.entry.backend.name
    if (resultType !== RESULT_TYPE.inputRequired) {
      if (isUnknownResultType(resultType)) throw new BackendError(backend, 'bad_reply', `unrecognized resultType ${JSON.stringify(resultType)}`) // RPC-5
      return scan === undefined ? this.#replies.complete(valid, reply.result) : this.#replies.spliced(valid, reply, scan)
    }
    if (!valid.spec.mrtr || !forward.binding) throw new BackendError(backend, 'bad_reply', `input_required is not allowed for ${valid.request.method}`)
    checkInputRequired(reply.result, valid.meta[META.clientCapabilities] as JsonObject, backend)
    return this.#replies.complete(valid, sealResult({ sealer: this.#deps.sealer, binding: forward.binding, ttlMs: this.#deps.stateTtlMs }, reply.result))
  }

  // ERR-5: a legacy backend's URL elicitation, as an input round for a modern client that takes one.
  #urlRound(valid: ValidRequest, forward: Forward, error: JsonRpcErrorObject): JsonObject | undefined {
    if (valid.legacy || !valid.spec.mrtr || forward.binding === undefined) return undefined
    const seal = { sealer: this.#deps.sealer, binding: forward.binding, ttlMs: this.#deps.stateTtlMs }
    return urlElicitationRound(error, valid.meta[META.clientCapabilities] as JsonObject, seal)
  }

  // LEGACY-C5 bridging: MRTR-capable calls to a legacy backend run with their own signal, so it may
  // ask for input mid-call; a retry carrying a bridge handle resumes the held call (MRTR-5). The
  // resumed round is this request's upstream call (its client span ends with it).
  #bridged(valid: ValidRequest, forward: Forward, ctx: CallContext, upstream: Upstream): Promise<Round> {
    const backend = forward.entry.backend
    const capabilities = valid.meta[META.clientCapabilities]
    const attachment = {
      signal: ctx.signal, onNotification: ctx.onNotification, progressToken: getProgressToken(valid.meta),
      clientCapabilities: isJsonObject(capabilities) ? capabilities : {},
    }
    const resume = forward.resume
    if (resume !== undefined) {
      const elsewhere = this.#relay !== undefined && resume.holder !== undefined && resume.holder !== this.#relay.holder
      return elsewhere ? this.#relay!.resume(resume, attachment, valid.params.inputResponses) : this.#bridge.resume(resume, attachment, valid.params.inputResponses)
    }
    const log = { backend: backend.name, rpcMethod: valid.request.method, tool: ctx.tool }
    // A held call keeps its slot while it waits for the client's input: it is a backend request.
    const run = (hooks: BridgeHooks) => this.schedulers.run(backend.name, { client: upstream.client, signal: hooks.signal }, () => backend.request({ ...upstream, ...hooks }))
    return this.#bridge.open(run, attachment, log)
  }

  // MRTR-2/3: the backend's request(s) as input requests; the sealed state names the held call and
  // is bound like any other (MRTR-8/9), expiring with the hold.
  #bridgeResult(forward: Forward, round: Extract<Round, { kind: 'input' }>): JsonObject {
    const requestState = sealBridgeState({ sealer: this.#deps.sealer, binding: forward.binding!, ttlMs: this.#holdMs }, round.handle)
    return { resultType: RESULT_TYPE.inputRequired, inputRequests: round.inputRequests, requestState }
  }
}
