// Backends, catalog and router: created from config, probed when the app is ready, closed on close.
import fp from 'fastify-plugin'
import { randomBytes } from 'node:crypto'
import type { BackendConfig, GatewayConfig } from '../src/config/types.ts'
import type { ServerInfo } from '../src/protocol/result.ts'
import { createBackend } from '../src/upstream/create-backend.ts'
import { ReplyBudget } from '../src/upstream/shared/reply-budget.ts'
import { BackendSet } from '../src/routing/backend-set.ts'
import { Catalog } from '../src/routing/catalog.ts'
import { Router } from '../src/routing/router.ts'
import { MIN_SECRET_BYTES, Sealer } from '../src/routing/seal.ts'
import { UpstreamParamsBuilder } from '../src/routing/upstream-params.ts'
import { readHeaderParams } from '../src/protocol/param-headers.ts'
import { ListenHub } from '../src/routing/listen-hub.ts'
import { timedBackend } from '../src/upstream/shared/timed-backend.ts'
import type { BackendEntry } from '../src/routing/backend-set.ts'
import { swapBackends, type SwapSummary } from '../src/lifecycle/backend-swap.ts'

declare module 'fastify' {
  interface FastifyInstance {
    gateway: {
      backends: BackendSet
      catalog: Catalog
      router: Router
      sealer: Sealer
      serverInfo: ServerInfo
      hub: ListenHub
      // Settles when every backend's first probe has (up or down).
      probed(): Promise<void>
      // The backends whose first probe has settled (readiness).
      firstProbed: ReadonlySet<string>
      // A config reload: the backends of the new config replace the running ones (backend-swap.ts).
      swapBackends(configs: readonly BackendConfig[]): Promise<SwapSummary>
    }
  }
}

export interface BackendsPluginOptions {
  config: GatewayConfig
  serverInfo: ServerInfo
}

export default fp<BackendsPluginOptions>(async function backendsPlugin(app, { config, serverInfo }) {
  const logger = app.log.child({ component: 'upstream' })
  const replyBudget = new ReplyBudget(config.limits.replyBytesInFlight)
  const upstream = app.metrics.upstream
  // The backends whose first probe has settled (readiness), at start and after a reload.
  const firstProbed = new Set<string>()
  const createEntry = (c: BackendConfig): BackendEntry => {
    const deps = { logger, clientInfo: serverInfo, credentials: app.auth.credentialsFor(c), replyBudget, onRestart: () => upstream.countStdioRestart(c.name) }
    const timed = timedBackend(createBackend(c, deps), (name, outcome, seconds) => upstream.observeRequest(name, outcome, seconds))
    const start = (): Promise<void> => timed.start().then(() => void firstProbed.add(c.name))
    return { backend: { ...timed, start }, config: c }
  }
  const entries = config.backends.map(createEntry)
  const backends = new BackendSet(entries, config.namespaceSeparator)
  const draining = new Set<BackendEntry>()
  let secret = config.stateSecret
  if (secret === '') {
    secret = randomBytes(MIN_SECRET_BYTES).toString('base64url')
    app.log.warn(
      'STATE SECRET GENERATED: neither MCP_GATEWAY_STATE_SECRET nor MCP_GATEWAY_STATE_SECRET_FILE is set, so this process sealed its ' +
      'state with a random secret of its own. Every replica behind one load balancer must share one secret (at least ' +
      `${MIN_SECRET_BYTES} bytes), and on every restart the cursors, requestState and session ids issued before stop working. ` +
      'Set MCP_GATEWAY_STATE_SECRET_FILE to a mounted secret file for production.',
    )
  }
  const sealer = new Sealer(secret)
  const params = new UpstreamParamsBuilder(serverInfo)
  const catalog = new Catalog(params)
  catalog.minRefreshMs = config.limits.listRefreshMs
  // HDR-11: a tool with invalid x-mcp-header annotations is dropped from tools/list, with a warning.
  const acceptTool = (tool: Record<string, unknown>, backend: string): boolean => {
    const check = readHeaderParams(tool)
    if (!check.ok) logger.warn({ backend, tool: tool.name, reason: check.problem }, 'tool dropped from tools/list')
    return check.ok
  }
  const access = app.auth.gateway.enabled ? app.auth.gateway : undefined
  const router = new Router({
    backends, catalog, sealer, params, logger, serverInfo, listen: true, stateTtlMs: config.stateTtlMs, acceptTool, pageSize: config.listPageSize, access,
    replays: app.sharedState.replays, handOff: app.sharedState.handOff, countRefusal: (limit, backend) => app.metrics.limits.countRefusal(limit, backend), limits: config.limits,
    observeToolCall: (backend, tool, outcome, seconds) => app.metrics.tools.observeCall(backend, tool, outcome, seconds),
    countMrtrRound: () => app.metrics.tools.countMrtrRound(),
  })
  let probing: Promise<void> | undefined
  const probed = (): Promise<void> => (probing ??= Promise.all(entries.map((e) => e.backend.start())).then(() => undefined))
  const hub = new ListenHub(backends, catalog, { logger, refreshMs: config.listPollMs })
  const swapDeps = { backends, catalog, schedulers: router.schedulers, hub, logger, createEntry, draining }
  const swap = (configs: readonly BackendConfig[]): Promise<SwapSummary> => swapBackends(swapDeps, configs, config.limits.queueTimeoutMs)
  app.decorate('gateway', { backends, catalog, router, sealer, serverInfo, hub, probed, firstProbed, swapBackends: swap })
  app.metrics.setBackendStatus(() => backends.entries.map((e) => e.backend.status()))
  app.metrics.limits.setGauges({ queued: () => router.schedulers.queued(), replyBytes: () => replyBudget.inFlight })
  // Probing never blocks readiness of the listener: /readyz reports backends as they come up. A
  // failure of probing or of hub.start is logged, never left an unhandled rejection.
  app.addHook('onReady', async () => {
    probed().then(() => hub.start()).catch((err: unknown) => app.log.error({ err }, 'backend probing or listen start failed'))
  })
  app.addHook('onClose', async () => {
    hub.close()
    router.close()
    const closing = [...backends.entries, ...draining]
    draining.clear()
    await Promise.all(closing.map((e) => e.backend.close()))
  })
}, { name: 'backends', dependencies: ['metrics', 'auth', 'shared-state'] })
