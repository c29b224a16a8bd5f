// build(config) → FastifyInstance: registers plugins, then routes. Never listens.
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import { pino, type Logger } from 'pino'
import cors from '@fastify/cors'
import type { GatewayConfig } from './config/types.ts'
import { isOriginAllowed } from './protocol/origin.ts'
import type { ServerInfo } from './protocol/result.ts'
import metricsPlugin from '../plugins/metrics.ts'
import backendsPlugin from '../plugins/backends.ts'
import securityPlugin from '../plugins/security.ts'
import errorHandlerPlugin from '../plugins/error-handler.ts'
import mcpRoutes from '../routes/mcp.ts'
import healthRoutes from '../routes/health.ts'
import metricsRoutes from '../routes/metrics.ts'
import { serveListen, type ListenDeps } from './front/listen-stream.ts'
import { KeepAliveTicker } from './front/keep-alive.ts'
import type { McpHandlerDeps } from './front/mcp-handler.ts'
import { buildCapabilities } from './routing/discover.ts'
import { createFrontGuards } from './front/guards.ts'
import { JSON_BODY, parseJsonBody } from './front/body.ts'
import pkg from '../package.json' with { type: 'json' }

export const MCP_ENDPOINT = '/mcp'
export const SERVER_INFO: ServerInfo = Object.freeze({ name: 'mcp-gateway', version: pkg.version })

// Never log secrets (AUTH-15, G13): credentials and mirrored parameter values are redacted.
export const REDACT_PATHS = ['req.headers.authorization', 'req.headers.cookie', 'req.headers["proxy-authorization"]', 'headers.authorization']

export interface BuildOptions {
  // pino options or false; tests pass { level: 'silent' } or a stream.
  logger?: boolean | object
}

// Logs go to stdout asynchronously and in batches: lines accumulate until LOG_BATCH_BYTES are
// buffered or LOG_FLUSH_MS have passed, so the access line per request costs no write of its own
// (one write per line cost about 6 % of the gateway's CPU per call). Flushed synchronously on exit
// (server.ts, and pino's own exit handler, which also covers an uncaught exception).
const LOG_BATCH_BYTES = 8 * 1024
const LOG_FLUSH_MS = 100
function createLogger(config: GatewayConfig): { loggerInstance: Logger; flush: () => void } {
  const destination = pino.destination({ dest: 1, sync: false, minLength: LOG_BATCH_BYTES, periodicFlush: LOG_FLUSH_MS })
  const logger = pino({ level: config.logLevel, redact: REDACT_PATHS }, destination)
  return { loggerInstance: logger, flush: () => destination.flushSync() }
}

declare module 'fastify' {
  interface FastifyInstance {
    // Writes out buffered log lines (before the process exits).
    flushLogs(): void
  }
}

// subscriptions/listen streams: served by the hub; on close each gets its closing result (SUB-9)
// before the server stops accepting.
function createListenHandler(app: FastifyInstance, config: GatewayConfig): McpHandlerDeps['listen'] {
  const deps: ListenDeps = {
    hub: app.gateway.hub,
    keepAlive: new KeepAliveTicker(config.keepAliveMs),
    serverInfo: SERVER_INFO,
    capabilities: () => buildCapabilities(app.gateway.backends, { listen: true }),
    closers: new Set(),
  }
  app.addHook('preClose', async () => {
    for (const close of deps.closers) close()
  })
  return (valid, stream, res) => serveListen(deps, valid, stream, res)
}

export async function build(config: GatewayConfig, options: BuildOptions = {}): Promise<FastifyInstance> {
  const own = options.logger === undefined ? createLogger(config) : undefined
  const app: FastifyInstance = Fastify({
    ...(own ? { loggerInstance: own.loggerInstance as FastifyBaseLogger } : { logger: options.logger }),
    // One access line per MCP request is written by the handler itself.
    logController: new LogController({ disableRequestLogging: true }),
    // No child logger per request (a hot-path allocation): log lines carry reqId themselves.
    childLoggerFactory: (logger) => logger,
    // The streamed body's bound (the declared size is checked first, by a front guard).
    bodyLimit: config.maxBodyBytes,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
  })
  app.decorate('flushLogs', () => own?.flush())
  // E32: only JSON bodies (text/plain, a browser's preflight-free type, is 415, never parsed), read
  // as one string and parsed once.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser(JSON_BODY, { parseAs: 'string' }, parseJsonBody)
  await app.register(errorHandlerPlugin)
  await app.register(metricsPlugin)
  await app.register(backendsPlugin, { config, serverInfo: SERVER_INFO })
  const guards = createFrontGuards({ allowedHosts: config.allowedHosts, allowedOrigins: config.allowedOrigins, maxBodyBytes: config.maxBodyBytes })
  await app.register(securityPlugin, { endpoint: MCP_ENDPOINT, guards })
  await app.register(cors, {
    // A request without Origin (every non-browser client) skips the CORS work entirely.
    origin: (origin, callback) => callback(null, origin !== undefined && isOriginAllowed(config.allowedOrigins, origin)),
    methods: ['POST'],
    exposedHeaders: [],
    maxAge: 600,
  })
  const listen = createListenHandler(app, config)
  const deps: McpHandlerDeps = { router: app.gateway.router, metrics: app.metrics, listen }
  await app.register(mcpRoutes, { endpoint: MCP_ENDPOINT, deps })
  await app.register(healthRoutes)
  await app.register(metricsRoutes)
  return app
}
