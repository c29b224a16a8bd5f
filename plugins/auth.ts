// Authentication, policy and rate limits (src/auth/), and the gateway's credentials toward
// backends: built once from the config, on one undici Agent for every request to an authorization
// server (JWKS, introspection, token endpoints), closed with the app.
import fp from 'fastify-plugin'
import { Agent } from 'undici'
import type { BackendConfig, GatewayConfig } from '../src/config/types.ts'
import { deriveAuthSettings, openAccessWarning } from '../src/auth/auth-config.ts'
import { createBackendCredentials, type BackendCredentials } from '../src/auth/backend-credentials.ts'
import { GatewayAuth } from '../src/auth/gateway-auth.ts'
import { createAuthMetrics } from '../src/observability/auth-metrics.ts'

declare module 'fastify' {
  interface FastifyInstance {
    auth: {
      gateway: GatewayAuth
      // The gateway's own credential for an HTTP backend with `auth`; undefined otherwise.
      credentialsFor(config: BackendConfig): BackendCredentials | undefined
    }
  }
}

export interface AuthPluginOptions {
  config: GatewayConfig
}

export default fp<AuthPluginOptions>(async function authPlugin(app, { config }) {
  const settings = deriveAuthSettings(config)
  const dispatcher = new Agent({ connections: 16, keepAliveTimeout: 10_000 })
  const store = app.sharedState.rateLimitStore(settings.rateLimit)
  const gateway = new GatewayAuth({ settings, dispatcher, metrics: createAuthMetrics(app.registry), store })
  const credentialsFor = (backend: BackendConfig): BackendCredentials | undefined =>
    backend.transport === 'http' && backend.auth ? createBackendCredentials(backend.auth, { dispatcher }) : undefined
  app.decorate('auth', { gateway, credentialsFor })
  const warning = openAccessWarning(config.host, settings)
  if (warning) app.log.warn(warning)
  app.addHook('onClose', async () => {
    await dispatcher.destroy()
  })
}, { name: 'auth', dependencies: ['metrics', 'shared-state'] })
