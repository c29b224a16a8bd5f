// startGateway(t, overrides): builds the app on port 0 (127.0.0.1), registers teardown.
import type { Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { build } from '../../src/app.ts'
import { validateConfig } from '../../src/config/schema.ts'
import type { GatewayConfig } from '../../src/config/types.ts'

export interface StartedGateway {
  app: FastifyInstance
  url: string // http://127.0.0.1:PORT/mcp
  origin: string // http://127.0.0.1:PORT
  config: GatewayConfig
}

export async function startGateway(t: Test, raw: Record<string, unknown> = {}, options: { waitReady?: boolean } = {}): Promise<StartedGateway> {
  const result = validateConfig({ port: 0, logLevel: 'silent', stateSecret: 'test-secret', ...raw })
  if (!result.ok) throw new Error(result.errors.join('; '))
  const app = await build(result.config, { logger: { level: 'silent' } })
  t.teardown(() => app.close())
  await app.listen({ host: '127.0.0.1', port: 0 })
  const address = app.server.address()
  if (address === null || typeof address === 'string') throw new Error('no address')
  const origin = `http://127.0.0.1:${address.port}`
  if (options.waitReady !== false) await waitReady(app)
  return { app, url: `${origin}/mcp`, origin, config: result.config }
}

// Probes run at onReady; wait for each backend's first probe to settle (up or down).
async function waitReady(app: FastifyInstance): Promise<void> {
  await app.gateway.probed()
}
