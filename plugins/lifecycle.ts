// The app's lifecycle state: draining (SIGTERM, src/lifecycle/drain.ts; /readyz answers 503) and the
// MCP requests in flight (cut with an error event at the shutdown deadline).
import fp from 'fastify-plugin'
import { InFlight } from '../src/lifecycle/in-flight.ts'

export interface Lifecycle {
  draining: boolean
  readonly inFlight: InFlight
}

declare module 'fastify' {
  interface FastifyInstance {
    lifecycle: Lifecycle
  }
}

export default fp(async function lifecyclePlugin(app) {
  app.decorate('lifecycle', { draining: false, inFlight: new InFlight() })
}, { name: 'lifecycle' })
