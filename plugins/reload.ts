// Reload without restart: the app's Reloader (src/lifecycle/reload.ts), asked by SIGHUP
// (src/server.ts) and, when an admin token is configured, by POST /admin/reload (routes/admin.ts).
import fp from 'fastify-plugin'
import type { GatewayConfig } from '../src/config/types.ts'
import { Reloader } from '../src/lifecycle/reload.ts'
import { createReloadMetrics } from '../src/observability/reload-metrics.ts'
import adminRoutes from '../routes/admin.ts'

declare module 'fastify' {
  interface FastifyInstance {
    reloader: Reloader
  }
}

export interface ReloadPluginOptions {
  config: GatewayConfig
  // Loads the config as at start (file, then environment); absent: the running config (no change).
  loadConfig?: () => GatewayConfig
}

export default fp<ReloadPluginOptions>(async function reloadPlugin(app, { config, loadConfig }) {
  const reloader = new Reloader({
    load: loadConfig ?? (() => config),
    running: config,
    swap: (configs) => app.gateway.swapBackends(configs),
    setLogLevel: (level) => void (app.log.level = level),
    logger: app.log.child({ component: 'reload' }),
    metrics: createReloadMetrics(app.registry),
  })
  app.decorate('reloader', reloader)
  if (config.adminToken !== '') {
    await app.register(adminRoutes, { token: config.adminToken, allowedHosts: config.allowedHosts, allowedOrigins: config.allowedOrigins, reloader })
  }
}, { name: 'reload', dependencies: ['metrics', 'backends'] })
