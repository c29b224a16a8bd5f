// A stdio MCP server behind the gateway: one long-lived child shared by every client (STDIO-10),
// its era probed at start and after every restart (STDIO-11, STDIO-13), restarted with backoff
// when it dies (STDIO-9), shut down by stdin EOF → SIGTERM → SIGKILL (STDIO-8).
import { RPC } from '../errors.ts'
import type { Logger } from '../observability/logger.ts'
import type { ServerInfo } from '../protocol/result.ts'
import type { JsonObject, JsonRpcNotification, JsonRpcRequest } from '../protocol/jsonrpc.ts'
import type { StdioBackendConfig } from '../config/types.ts'
import type { Backend, BackendStatus, Era, ListenSink, UpstreamCall, UpstreamReply } from './backend.ts'
import { BACKEND_FAILURE, BackendError } from './backend.ts'
import type { ChildExit } from './child-process.ts'
import { describeExit } from './child-process.ts'
import type { EraVerdict, ProbeChannel } from './era-probe.ts'
import { buildModernMeta, probeEra } from './era-probe.ts'
import { createCallRouter } from './stdio-calls.ts'
import { createIdAllocator } from './stdio-ids.ts'
import { createListenRegistry } from './stdio-listens.ts'
import type { StdioSession } from './stdio-session.ts'
import { openStdioSession } from './stdio-session.ts'
import type { StdioBackendTuning } from './stdio-tuning.ts'
import { DEFAULT_CLIENT_INFO, DEFAULT_STDIO_TUNING, computeRestartDelayMs } from './stdio-tuning.ts'

export interface StdioBackendDeps {
  logger: Logger
  // The gateway's identity, sent as clientInfo in the probe and in initialize.
  clientInfo?: ServerInfo
  tuning?: Partial<StdioBackendTuning>
  // Called after every status change (for /readyz, mcp_gateway_backend_up, list refreshes).
  onStatus?: (status: BackendStatus) => void
  now?: () => number
}

interface State {
  session?: StdioSession
  era: Era
  up: boolean
  reason?: string
  protocolVersion?: string
  capabilities: JsonObject
  upSince?: number
  failures: number
  restartTimer?: NodeJS.Timeout
  // Why the current child is being retired, when the gateway itself ends it.
  retireReason?: string
  started?: Promise<void>
  closed?: Promise<void>
}

export function createStdioBackend(config: StdioBackendConfig, deps: StdioBackendDeps): Backend {
  const name = config.name
  const logger = deps.logger.child({ backend: name })
  const tuning: StdioBackendTuning = { ...DEFAULT_STDIO_TUNING, ...deps.tuning }
  const now = deps.now ?? Date.now
  const clientInfo = deps.clientInfo ?? DEFAULT_CLIENT_INFO
  const ids = createIdAllocator()
  const calls = createCallRouter({ backend: name, timeoutMs: config.timeoutMs, ids, logger })
  const listens = createListenRegistry({ ids, logger })
  const state: State = { era: 'unknown', up: false, reason: 'not started', capabilities: {}, failures: 0 }

  const status = (): BackendStatus => ({
    name, transport: 'stdio', era: state.era, up: state.up,
    ...(state.reason === undefined ? {} : { reason: state.reason }),
    ...(state.protocolVersion === undefined ? {} : { protocolVersion: state.protocolVersion }),
  })
  const publish = (): void => {
    try {
      deps.onStatus?.(status())
    } catch (error) {
      logger.error({ err: error }, 'stdio backend status listener failed')
    }
  }
  const setDown = (reason: string): void => {
    state.up = false
    state.reason = reason
    publish()
  }

  const setUp = (session: StdioSession, verdict: Extract<EraVerdict, { up: true }>): void => {
    Object.assign(state, { up: true, era: verdict.era, protocolVersion: verdict.protocolVersion, capabilities: verdict.capabilities })
    state.reason = undefined
    state.upSince = now()
    listens.attach({ session, era: verdict.era, meta: buildModernMeta(clientInfo) })
    logger.info({ era: verdict.era, protocolVersion: verdict.protocolVersion, probe: verdict.note, childPid: session.pid }, 'stdio backend is up')
    publish()
  }

  const scheduleRestart = (reason: string): void => {
    const delayMs = computeRestartDelayMs(state.failures++, tuning)
    logger.warn({ reason, delayMs }, 'stdio backend is down; restarting')
    setDown(`${reason}; restarting in ${delayMs} ms`)
    state.restartTimer = setTimeout(() => {
      state.restartTimer = undefined
      void launch()
    }, delayMs)
    state.restartTimer.unref()
  }

  const onExit = (session: StdioSession, exit: ChildExit): void => {
    if (state.session !== session) return
    state.session = undefined
    listens.detach()
    if (state.closed !== undefined) return
    if (state.upSince !== undefined && now() - state.upSince >= tuning.stableUptimeMs) state.failures = 0
    state.upSince = undefined
    const reason = state.retireReason ?? `child ${describeExit(exit)}`
    state.retireReason = undefined
    scheduleRestart(reason)
  }

  const onNotification = (notification: JsonRpcNotification): void => {
    const routed = notification.method === 'notifications/progress'
      ? calls.routeProgress(notification)
      : notification.method === 'notifications/message'
        ? calls.routeLog(notification, state.era)
        : state.up && listens.route(notification, state.era)
    if (!routed) logger.debug({ rpcMethod: notification.method }, 'stdio backend notification not routed; dropped')
  }

  const onServerRequest = (session: StdioSession, request: JsonRpcRequest): void => {
    if (state.up && state.era === 'modern') {
      // STDIO-4/5: a modern server never sends requests, and a modern client never answers.
      logger.warn({ rpcMethod: request.method }, 'modern stdio backend sent a request; ignored')
      return
    }
    // LEGACY-12: ping is answered with {}; LEGACY-C5: other requests are refused (not bridged yet).
    if (request.method === 'ping') return session.respond(request.id, { result: {} })
    logger.info({ rpcMethod: request.method }, 'stdio backend request refused: not supported by the gateway')
    session.respond(request.id, { error: { code: RPC.methodNotFound, message: `Method not found: ${request.method}` } })
  }

  const probeChannel = (session: StdioSession): ProbeChannel => ({
    request: (method, params) => new Promise((resolve) => {
      const id = ids.requestId()
      const timer = setTimeout(() => {
        session.forget(id)
        resolve({ ok: 'timeout', detail: `no answer within ${tuning.probeTimeoutMs} ms` })
      }, tuning.probeTimeoutMs)
      timer.unref()
      session.request({ id, method, params }, (reply) => { clearTimeout(timer); resolve(reply) })
    }),
    notify: (method, params) => session.notify(method, params),
  })

  const spawnSession = (): StdioSession => {
    const childOptions = { ...config, logger, stderrLinesPerSecond: tuning.stderrLinesPerSecond }
    const session: StdioSession = openStdioSession(childOptions, {
      onNotification,
      onServerRequest: (request) => onServerRequest(session, request),
      onExit: (exit) => onExit(session, exit),
    })
    return session
  }

  const launch = async (): Promise<void> => {
    let session: StdioSession
    try {
      session = spawnSession()
    } catch (error) {
      return scheduleRestart(`child could not be started: ${(error as Error).message}`)
    }
    state.session = session
    const verdict = await probeEra(probeChannel(session), clientInfo)
    if (state.session !== session || state.closed !== undefined) return
    if (verdict.up) return setUp(session, verdict)
    state.era = verdict.era
    state.retireReason = verdict.reason
    await session.terminate(tuning.killGraceMs)
  }

  const shutDown = async (): Promise<void> => {
    clearTimeout(state.restartTimer)
    listens.closeAll(`stdio backend "${name}" closed`)
    calls.failAll(new BackendError(name, BACKEND_FAILURE.closed, `stdio backend "${name}" is shutting down`))
    setDown('closed')
    const session = state.session
    if (session !== undefined) await session.terminate(tuning.killGraceMs)
  }

  return {
    name,
    transport: 'stdio',
    start: () => (state.started ??= state.closed === undefined ? launch() : Promise.resolve()),
    status,
    capabilities: () => state.capabilities,
    request(call: UpstreamCall): Promise<UpstreamReply> {
      if (state.closed !== undefined) {
        return Promise.reject(new BackendError(name, BACKEND_FAILURE.closed, `stdio backend "${name}" is closed`))
      }
      if (!state.up || state.session === undefined) {
        return Promise.reject(new BackendError(name, BACKEND_FAILURE.unreachable, `stdio backend "${name}" is down: ${state.reason ?? 'starting'}`))
      }
      return calls.start(state.session, call)
    },
    listen(filter: JsonObject, sink: ListenSink): () => void {
      if (state.closed === undefined) return listens.open(filter, sink)
      sink.onClose(`stdio backend "${name}" closed`)
      return () => {}
    },
    close: () => (state.closed ??= shutDown()),
  }
}
