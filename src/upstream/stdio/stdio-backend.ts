// A stdio MCP server behind the gateway: one long-lived child shared by every client (STDIO-10),
// its era probed at start and after every restart (STDIO-11, STDIO-13), restarted with backoff
// when it dies (STDIO-9), shut down by stdin EOF → SIGTERM → SIGKILL (STDIO-8).
import type { Logger } from '../../observability/logger.ts'
import type { JsonObject, JsonRpcNotification, JsonRpcRequest } from '../../protocol/jsonrpc.ts'
import type { ServerInfo } from '../../protocol/result.ts'
import type { StdioBackendConfig } from '../../config/types.ts'
import { buildModernMeta } from '../../protocol/era.ts'
import type { Backend, BackendStatus, ListenSink, UpstreamCall, UpstreamReply } from '../backend.ts'
import { BACKEND_FAILURE, BackendError } from '../backend.ts'
import { answerCallRequest } from '../legacy/legacy-reply.ts'
import { hasLoggingCapability, LEGACY_SESSION_LOG_LEVEL } from '../http/legacy-session.ts'
import { computeBackoffMs, startTimer, type BackoffPolicy } from '../shared/backoff.ts'
import { BackendState } from '../shared/backend-state.ts'
import type { ChildExit } from './child-process.ts'
import { describeExit } from './child-process.ts'
import type { ProbeVerdict } from './era-probe.ts'
import { createProbeChannel, probeEra } from './era-probe.ts'
import type { CallRouter } from './stdio-calls.ts'
import { createCallRouter } from './stdio-calls.ts'
import type { IdAllocator } from './stdio-ids.ts'
import { createIdAllocator } from './stdio-ids.ts'
import type { ListenRegistry } from './stdio-listens.ts'
import { createListenRegistry } from './stdio-listens.ts'
import type { StdioSession } from './stdio-session.ts'
import { openStdioSession } from './stdio-session.ts'
import type { StdioBackendTuning } from './stdio-tuning.ts'
import { DEFAULT_CLIENT_INFO, DEFAULT_STDIO_TUNING, toRestartBackoff } from './stdio-tuning.ts'

export interface StdioBackendDeps {
  logger: Logger
  // The gateway's identity, sent as clientInfo in the probe and in initialize.
  clientInfo?: ServerInfo
  tuning?: Partial<StdioBackendTuning>
  // Called after every status change (for /readyz, mcp_gateway_backend_up, list refreshes).
  onStatus?: (status: BackendStatus) => void
  now?: () => number
}

type UpVerdict = Extract<ProbeVerdict, { up: true }>

export function createStdioBackend(config: StdioBackendConfig, deps: StdioBackendDeps): Backend {
  return new StdioBackend(config, deps)
}

class StdioBackend implements Backend {
  readonly name: string
  readonly transport = 'stdio'
  readonly #config: StdioBackendConfig
  readonly #deps: StdioBackendDeps
  readonly #logger: Logger
  readonly #tuning: StdioBackendTuning
  readonly #restartBackoff: BackoffPolicy
  readonly #state: BackendState
  readonly #ids: IdAllocator = createIdAllocator()
  readonly #calls: CallRouter
  readonly #listens: ListenRegistry
  #session: StdioSession | undefined
  #upSince: number | undefined
  #failures = 0
  #restartTimer: NodeJS.Timeout | undefined
  // Why the current child is being retired, when the gateway itself ends it.
  #retireReason: string | undefined
  #started: Promise<void> | undefined
  #closed: Promise<void> | undefined

  constructor(config: StdioBackendConfig, deps: StdioBackendDeps) {
    this.name = config.name
    this.#config = config
    this.#deps = deps
    this.#logger = deps.logger.child({ backend: config.name })
    this.#tuning = { ...DEFAULT_STDIO_TUNING, ...deps.tuning }
    this.#restartBackoff = toRestartBackoff(this.#tuning)
    this.#state = new BackendState({ name: config.name, transport: 'stdio', logger: deps.logger, initialReason: 'not started', onStatus: deps.onStatus })
    this.#calls = createCallRouter({ backend: config.name, timeoutMs: config.timeoutMs, ids: this.#ids, logger: this.#logger })
    this.#listens = createListenRegistry({ ids: this.#ids, logger: this.#logger })
  }

  // Resolves once the first probe has decided (up or down); never rejects.
  start(): Promise<void> {
    this.#started ??= this.#closed === undefined ? this.#launch() : Promise.resolve()
    return this.#started
  }

  status(): BackendStatus {
    return this.#state.status()
  }

  capabilities(): JsonObject {
    return this.#state.capabilities
  }

  request(call: UpstreamCall): Promise<UpstreamReply> {
    if (this.#closed !== undefined) return Promise.reject(this.#error(BACKEND_FAILURE.closed, 'is closed'))
    if (!this.#state.up || this.#session === undefined) {
      return Promise.reject(this.#error(BACKEND_FAILURE.unreachable, `is down: ${this.#state.reason ?? 'starting'}`))
    }
    return this.#calls.start(this.#session, call)
  }

  listen(filter: JsonObject, sink: ListenSink): () => void {
    if (this.#closed === undefined) return this.#listens.open(filter, sink)
    sink.onClose(`stdio backend "${this.name}" closed`)
    return () => {}
  }

  close(): Promise<void> {
    this.#closed ??= this.#shutDown()
    return this.#closed
  }

  async #launch(): Promise<void> {
    let session: StdioSession
    try {
      session = this.#spawnSession()
    } catch (error) {
      return this.#scheduleRestart(`child could not be started: ${(error as Error).message}`)
    }
    this.#session = session
    const channel = createProbeChannel(session, this.#ids.requestId, this.#tuning.probeTimeoutMs)
    const verdict = await probeEra(channel, this.#deps.clientInfo ?? DEFAULT_CLIENT_INFO)
    if (this.#session !== session || this.#closed !== undefined) return
    if (verdict.up) return this.#setUp(session, verdict)
    this.#state.setDown(verdict.reason, { era: verdict.era })
    this.#retireReason = verdict.reason
    await session.terminate(this.#tuning.killGraceMs)
  }

  #spawnSession(): StdioSession {
    const options = { ...this.#config, logger: this.#logger, stderrLinesPerSecond: this.#tuning.stderrLinesPerSecond }
    const session: StdioSession = openStdioSession(options, {
      onNotification: (notification) => this.#onNotification(notification),
      onServerRequest: (request) => this.#onServerRequest(session, request),
      onExit: (exit) => this.#onExit(session, exit),
    })
    return session
  }

  #setUp(session: StdioSession, verdict: UpVerdict): void {
    const { era, protocolVersion, capabilities, note } = verdict
    this.#upSince = this.#now()
    // SUB-12: every open listen is (re)sent to the new child.
    this.#listens.attach({ session, era, meta: buildModernMeta(this.#deps.clientInfo ?? DEFAULT_CLIENT_INFO) })
    if (era === 'legacy' && hasLoggingCapability(capabilities)) this.#setLogLevel(session)
    this.#state.setUp({ era, protocolVersion, capabilities, fields: { probe: note, childPid: session.pid } })
  }

  // LOG-7: a legacy child logs session-wide at the level of `logging/setLevel`: ask for everything,
  // once, right after `notifications/initialized` (sent by the probe; stdin keeps the order), and let
  // the gateway filter each log by its client's level. Later calls are written after it on stdin.
  #setLogLevel(session: StdioSession): void {
    const logged = { logLevel: LEGACY_SESSION_LOG_LEVEL }
    const params = { level: LEGACY_SESSION_LOG_LEVEL }
    session.request({ id: this.#ids.requestId(), method: 'logging/setLevel', params }, (reply) => {
      if (reply.ok === true) return this.#logger.info(logged, 'legacy backend log level set')
      // A child that exits before answering is restarted, and asked again by its successor.
      if (reply.ok === 'gone') return
      const reason = reply.ok === false ? `${reply.error.message} (${reply.error.code})` : reply.detail
      this.#logger.warn({ ...logged, reason }, 'legacy backend refused logging/setLevel')
    })
  }

  #onExit(session: StdioSession, exit: ChildExit): void {
    if (this.#session !== session) return
    this.#session = undefined
    this.#listens.detach()
    if (this.#closed !== undefined) return
    const stable = this.#upSince !== undefined && this.#now() - this.#upSince >= this.#tuning.stableUptimeMs
    if (stable) this.#failures = 0
    this.#upSince = undefined
    const reason = this.#retireReason ?? `child ${describeExit(exit)}`
    this.#retireReason = undefined
    this.#scheduleRestart(reason)
  }

  // STDIO-9: restart with exponential backoff; the timer never holds the process open.
  #scheduleRestart(reason: string): void {
    const delayMs = computeBackoffMs(this.#failures++, this.#restartBackoff)
    this.#logger.debug({ reason, delayMs }, 'stdio backend restart scheduled')
    this.#state.setDown(`${reason}; restarting in ${delayMs} ms`, { fields: { delayMs } })
    this.#restartTimer = startTimer(delayMs, () => {
      this.#restartTimer = undefined
      this.#launch().catch((error: unknown) => this.#logger.error({ err: error }, 'stdio backend restart failed'))
    })
  }

  #onNotification(notification: JsonRpcNotification): void {
    let routed: boolean
    if (notification.method === 'notifications/progress') routed = this.#calls.routeProgress(notification)
    else if (notification.method === 'notifications/message') routed = this.#routeLog(notification)
    else routed = this.#state.up && this.#listens.route(notification, this.#state.era)
    if (!routed) this.#logger.debug({ rpcMethod: notification.method }, 'stdio backend notification not routed; dropped')
  }

  // A log written while no call is in flight belongs to none: it goes to the listens that take logs
  // (the legacy sessions' GET streams). With calls in flight it may be one of theirs (stdio-calls.ts).
  #routeLog(notification: JsonRpcNotification): boolean {
    if (this.#calls.size > 0) return this.#calls.routeLog(notification, this.#state.era)
    return this.#state.up && this.#listens.routeLog(notification)
  }

  #onServerRequest(session: StdioSession, request: JsonRpcRequest): void {
    if (this.#state.up && this.#state.era === 'modern') {
      // STDIO-4/5: a modern server never sends requests, and a modern client never answers.
      this.#logger.warn({ rpcMethod: request.method }, 'modern stdio backend sent a request; ignored')
      return
    }
    // LEGACY-12: ping is answered with {}; LEGACY-C5: elicitation, sampling and roots go to the
    // call they belong to (MRTR bridging), or are refused when there is no single such call.
    const bridge = request.method === 'ping' ? undefined : this.#calls.bridgeFor()
    answerCallRequest(request as unknown as JsonObject, bridge).then((answer) => {
      if ('error' in answer) {
        const reason = bridge === undefined ? 'no single call in flight to relay it for' : answer.error.message
        this.#logger.info({ rpcMethod: request.method, reason }, 'stdio backend request refused')
      }
      session.respond(request.id, answer)
    }).catch((err: unknown) => this.#logger.warn({ err, rpcMethod: request.method }, 'could not answer a stdio backend request'))
  }

  async #shutDown(): Promise<void> {
    clearTimeout(this.#restartTimer)
    this.#listens.closeAll(`stdio backend "${this.name}" closed`)
    this.#calls.failAll(this.#error(BACKEND_FAILURE.closed, 'is shutting down'))
    this.#state.setClosed()
    await this.#session?.terminate(this.#tuning.killGraceMs)
  }

  #now(): number {
    return (this.#deps.now ?? Date.now)()
  }

  #error(reason: BackendError['reason'], what: string): BackendError {
    return new BackendError(this.name, reason, `stdio backend "${this.name}" ${what}`)
  }
}
