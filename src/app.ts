// build(config) → FastifyInstance: registers plugins, then routes. Never listens.
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyServerOptions } from 'fastify'
import { pino, type Logger } from 'pino'
import cors from '@fastify/cors'
import type { GatewayConfig } from './config/types.ts'
import type { Principal } from './auth/principal.ts'
import { isOriginAllowed } from './protocol/origin.ts'
import type { ServerInfo } from './protocol/result.ts'
import metricsPlugin from '../plugins/metrics.ts'
import lifecyclePlugin from '../plugins/lifecycle.ts'
import backendsPlugin from '../plugins/backends.ts'
import authPlugin from '../plugins/auth.ts'
import sharedStatePlugin from '../plugins/shared-state.ts'
import wellKnownRoutes from '../routes/well-known.ts'
import securityPlugin from '../plugins/security.ts'
import errorHandlerPlugin from '../plugins/error-handler.ts'
import mcpRoutes from '../routes/mcp.ts'
import healthRoutes from '../routes/health.ts'
import metricsRoutes from '../routes/metrics.ts'
import reloadPlugin from '../plugins/reload.ts'
import { PASS_THROUGH_TRACING, type Tracing } from './observability/tracing.ts'
import { serveListen, type ListenDeps } from './front/listen-stream.ts'
import { KeepAliveTicker } from './front/keep-alive.ts'
import type { McpHandlerDeps } from './front/mcp-handler.ts'
import { buildCapabilities } from './routing/discover.ts'
import { createLegacyFront, type LegacyFront } from './front/legacy/create-legacy-front.ts'
import { createFrontGuards } from './front/guards.ts'
import { requestId } from './front/request-id.ts'
import { JSON_BODY, parseJsonBody } from './front/body.ts'
import { createClientErrorHandler } from './front/client-error.ts'
import { BodyDeadlines } from './front/body-deadlines.ts'
import { capLogLine } from './observability/log-line-limit.ts'
import { createFrontMetrics } from './observability/front-metrics.ts'
import { ConnectionGate, softFdLimit } from './front/connection-gate.ts'
import { StreamSlots } from './front/stream-slots.ts'
import type { StreamQueueLimit } from './front/reply-stream.ts'
import { LIMIT } from './observability/metrics.ts'
import { GatewayError } from './errors.ts'
import { refuse } from './front/refusal.ts'
import { trackSilentConnections } from './front/silent-connections.ts'
import { bufferDestination, LogBatch } from './observability/log-batch.ts'
import { frontServerOptions } from './front/tls.ts'
import tlsReloadPlugin from '../plugins/tls-reload.ts'
import pkg from '../package.json' with { type: 'json' }

export const MCP_ENDPOINT = '/mcp'

// node:http server options of every HTTP/1.1 listener, plain or TLS (see build()).
const HTTP1_OPTIONS = { joinDuplicateHeaders: true, requireHostHeader: false }
export const SERVER_INFO: ServerInfo = Object.freeze({ name: 'mcp-gateway', version: pkg.version })

// Never log secrets (AUTH-15, HDR-13): credentials and mirrored parameter values are redacted.
export const REDACT_PATHS = ['req.headers.authorization', 'req.headers.cookie', 'req.headers["proxy-authorization"]', 'headers.authorization']

export interface BuildOptions {
  // pino options or false; tests pass { level: 'silent' } or a stream.
  logger?: boolean | object
  // Re-reads the config for a reload (SIGHUP, POST /admin/reload); absent: nothing to re-read.
  loadConfig?: () => GatewayConfig
  // Spans (README "Tracing", startTracing); absent: trace context passed on, no spans.
  tracing?: Tracing
}

// Logs go to stdout asynchronously and in batches: lines accumulate (src/observability/log-batch.ts)
// until LOG_BATCH_CHARS are waiting or LOG_FLUSH_MS have passed, so the access line per request
// costs no write of its own (one write per line cost about 6 % of the gateway's CPU per call).
// Settled before a planned exit (server.ts: waits for the writes in flight, so no line is reordered
// or lost), flushed synchronously by an exit handler otherwise (an uncaught exception; removed when
// the app closes). A batch is at most sonic-boom's largest single write
// (16 KiB): each write is a hop to the libuv thread pool, and 8 KiB batches cost about 2 µs of pool
// CPU per request (issue 8).
const LOG_BATCH_CHARS = 16 * 1024
const LOG_FLUSH_MS = 100
const LOG_SETTLE_LIMIT_MS = 2_000
function createLogger(config: GatewayConfig): { loggerInstance: Logger; settle: () => Promise<void>; release: () => void } {
  const batch = new LogBatch(bufferDestination(1), { batchChars: LOG_BATCH_CHARS, flushMs: LOG_FLUSH_MS })
  const logger = pino({ level: config.logLevel, redact: REDACT_PATHS, hooks: { streamWrite: capLogLine } }, batch)
  const flush = (): void => batch.flushSync()
  process.on('exit', flush)
  return { loggerInstance: logger, settle: () => batch.settle(LOG_SETTLE_LIMIT_MS), release: () => void process.off('exit', flush) }
}

// A logger given by the caller (tests) gets the same line cap.
function withLineCap(logger: BuildOptions['logger']): BuildOptions['logger'] {
  return typeof logger === 'object' ? { ...logger, hooks: { streamWrite: capLogLine } } : logger
}

declare module 'fastify' {
  interface FastifyRequest {
    // The caller, once the admission guard let the request through; undefined with auth off.
    principal?: Principal
  }
  interface FastifyInstance {
    // Writes out every log line, in order (before the process exits).
    settleLogs(): Promise<void>
  }
}

// subscriptions/listen streams: served by the hub; on close each gets its closing result (SUB-9)
// before the server stops accepting.
function createListenHandler(app: FastifyInstance, keepAlive: KeepAliveTicker, slots: StreamSlots): McpHandlerDeps['listen'] {
  const deps: ListenDeps = {
    hub: app.gateway.hub,
    keepAlive,
    serverInfo: SERVER_INFO,
    capabilities: () => buildCapabilities(app.gateway.backends, { listen: true }),
    closers: new Set(),
    gauge: app.metrics.sseStreams.listen,
  }
  app.addHook('preClose', async () => {
    for (const close of deps.closers) close()
  })
  // Each stream holds a slot of its client's (README "Limits") for as long as it is open.
  return async (valid, stream, res, client) => {
    const full = slots.take(client)
    if (full !== undefined) return full
    try {
      return await serveListen(deps, valid, stream, res)
    } finally {
      slots.release(client)
    }
  }
}

// Connections and long-lived streams (README "Limits"), and their gauges.
function createFrontLimits(app: FastifyInstance, config: GatewayConfig): { streamSlots: StreamSlots; streamLimit: StreamQueueLimit } {
  const gate = new ConnectionGate({ limit: config.limits.connections, metrics: app.metrics, log: app.log, fdLimit: softFdLimit() })
  gate.attach(app.server)
  const slots = new StreamSlots({ perClient: config.limits.streamsPerClient, total: config.limits.streams, metrics: app.metrics.limits })
  createFrontMetrics(app.registry, { connections: () => gate.open, streams: () => slots.open, fds: () => gate.fds(), fdLimit: gate.fdLimit })
  const limits = app.metrics.limits
  const streamLimit = { queueBytes: config.limits.streamQueueBytes, slowReader: () => limits.countRefusal(LIMIT.slowReader, '') }
  return { streamSlots: slots, streamLimit }
}

// LEGACY-1: 2025-11-25 clients on the same endpoint, through the same router; their GET streams end
// before the server stops accepting.
interface LegacyShared {
  keepAlive: KeepAliveTicker
  streamSlots: StreamSlots
  streamLimit: StreamQueueLimit
  tracing: Tracing
}

function createLegacy(app: FastifyInstance, config: GatewayConfig, shared: LegacyShared): LegacyFront {
  const { router, sealer, hub, backends } = app.gateway
  const legacy = createLegacyFront({
    router, sealer, hub, ...shared, metrics: app.metrics, serverInfo: SERVER_INFO,
    capabilities: () => buildCapabilities(backends, { listen: true }),
    sessionTtlMs: config.sessionTtlMs, clientAnswerTimeoutMs: config.clientAnswerTimeoutMs, trustProxy: config.trustProxy, ports: app.sharedState,
  })
  app.addHook('preClose', async () => legacy.close())
  return legacy
}

export async function build(config: GatewayConfig, options: BuildOptions = {}): Promise<FastifyInstance> {
  const own = options.logger === undefined ? createLogger(config) : undefined
  const app: FastifyInstance = Fastify({
    ...(own ? { loggerInstance: own.loggerInstance as FastifyBaseLogger } : { logger: withLineCap(options.logger) }),
    // One access line per MCP request is written by the handler itself.
    logController: new LogController({ disableRequestLogging: true }),
    // No child logger per request (a hot-path allocation): log lines carry reqId themselves.
    childLoggerFactory: (logger) => logger,
    // The streamed body's bound (the declared size is checked first, by a front guard).
    bodyLimit: config.maxBodyBytes,
    return503OnClosing: true,
    // Unique across replicas, or the caller's own X-Request-Id (sanitised).
    genReqId: requestId,
    requestIdHeader: false,
    // RFC 9112 §3.2: a repeated Host (or Content-Type, Authorization …) arrives joined by a comma
    // instead of the first copy winning, so the strict checks refuse it.
    // A missing Host is the Host guard's 400 with a JSON-RPC body, not node's bare one.
    http: HTTP1_OPTIONS,
    // What the parser or the router refuses still gets a JSON-RPC error (src/front/client-error.ts).
    clientErrorHandler: createClientErrorHandler(() => app.metrics),
    frameworkErrors: (err, _request, reply) => refuse(reply, new GatewayError('MCP_GATEWAY_HTTP_BAD_REQUEST', undefined, { cause: err })),
    // Connections idle after a request; those that never sent one: trackSilentConnections below.
    forceCloseConnections: 'idle',
    // HTTPS, h2 by ALPN or h2c (src/front/tls.ts); X-Forwarded-Host/-Proto/-For believed only
    // behind a proxy (`trustProxy`): the Host guard then checks the host the client asked for.
    ...frontServerOptions(config, HTTP1_OPTIONS),
    trustProxy: config.trustProxy,
  } as FastifyServerOptions & { http: typeof HTTP1_OPTIONS }) as unknown as FastifyInstance
  app.decorate('settleLogs', async () => own?.settle())
  if (own) app.addHook('onClose', async () => own.release())
  app.decorate('accessLog', { trustProxy: config.trustProxy })
  if (config.tls) await app.register(tlsReloadPlugin, { tls: config.tls })
  // Slow bodies: 408 past limits.bodyIdleMs between chunks or limits.bodyTimeoutMs in all.
  const bodyDeadlines = new BodyDeadlines({ idleMs: config.limits.bodyIdleMs, totalMs: config.limits.bodyTimeoutMs })
  app.server.on('request', bodyDeadlines.watch)
  app.addHook('onClose', async () => bodyDeadlines.close())
  // HTTP-17: only JSON bodies (text/plain, a browser's preflight-free type, is 415, never parsed), read
  // as one string and parsed once.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser(JSON_BODY, { parseAs: 'string' }, (request, body: string, done) => {
    bodyDeadlines.settled(request.raw)
    parseJsonBody(request, body, done)
  })
  await app.register(errorHandlerPlugin, { endpoint: MCP_ENDPOINT })
  await app.register(metricsPlugin, { config, version: pkg.version })
  await app.register(lifecyclePlugin)
  await app.register(sharedStatePlugin, { config })
  await app.register(authPlugin, { config })
  await app.register(backendsPlugin, { config, serverInfo: SERVER_INFO })
  const gatewayAuth = app.auth.gateway
  // Authentication and rate limits, when configured: a guard of the front list (AUTH-6, AUTH-16).
  const auth = gatewayAuth.enabled || gatewayAuth.limited ? gatewayAuth : undefined
  const guards = createFrontGuards({ allowedHosts: config.allowedHosts, allowedOrigins: config.allowedOrigins, maxBodyBytes: config.maxBodyBytes, auth })
  // Set by the admission guard; declared so every request has the same shape.
  app.decorateRequest('principal', undefined)
  await app.register(securityPlugin, { endpoint: MCP_ENDPOINT, guards })
  await app.register(cors, {
    // A request without Origin (every non-browser client) skips the CORS work entirely.
    origin: (origin, callback) => callback(null, origin !== undefined && isOriginAllowed(config.allowedOrigins, origin)),
    methods: config.legacyClients ? ['POST', 'GET', 'DELETE'] : ['POST'],
    // A browser client must read the challenge to find the metadata (AUTH-4) and when to retry, and
    // a legacy one its session id (LEGACY-4).
    exposedHeaders: config.legacyClients ? ['www-authenticate', 'retry-after', 'mcp-session-id'] : ['www-authenticate', 'retry-after'],
    maxAge: 600,
  })
  const keepAlive = new KeepAliveTicker(config.keepAliveMs)
  const { streamSlots, streamLimit } = createFrontLimits(app, config)
  const listen = createListenHandler(app, keepAlive, streamSlots)
  const tracing = options.tracing ?? PASS_THROUGH_TRACING
  // Spans still queued are exported (within the exporter's timeout) once the server has stopped.
  app.addHook('onClose', () => tracing.shutdown())
  const legacy = config.legacyClients ? createLegacy(app, config, { keepAlive, streamSlots, streamLimit, tracing }) : undefined
  const deps: McpHandlerDeps = {
    router: app.gateway.router, metrics: app.metrics, streamLimit, listen, legacy: legacy?.post, inFlight: app.lifecycle.inFlight, trustProxy: config.trustProxy, tracing,
  }
  await app.register(mcpRoutes, { endpoint: MCP_ENDPOINT, deps, legacy, trustProxy: config.trustProxy })
  await app.register(healthRoutes, { minBackendsUp: config.minBackendsUp })
  // RFC 9728 metadata, readable without a token (AUTH-3, AUTH-4).
  if (app.auth.gateway.metadata) await app.register(wellKnownRoutes, { metadata: app.auth.gateway.metadata })
  await app.register(metricsRoutes)
  await app.register(reloadPlugin, { config, loadConfig: options.loadConfig })
  // The last preClose hook: nothing runs between it and the server's close.
  const closeSilent = trackSilentConnections(app.server)
  app.addHook('preClose', async () => closeSilent())
  return app
}
