// OAuth 2.0 Protected Resource Metadata (RFC 9728, AUTH-3/AUTH-4) at the path-inserted well-known
// URI and at the root: readable without a token and from any origin (a browser-based client must be
// able to discover where to get one). The document is built once from the configuration.
import type { FastifyPluginAsync } from 'fastify'

export interface WellKnownOptions {
  metadata: { paths: string[]; body: string }
}

// Route-level @fastify/cors options: any origin, GET only, no credentials.
const OPEN_CORS = { cors: { origin: '*', methods: ['GET'], credentials: false } }

const wellKnownRoutes: FastifyPluginAsync<WellKnownOptions> = async (app, { metadata }) => {
  for (const path of metadata.paths) {
    app.get(path, { config: OPEN_CORS }, async (_request, reply) => {
      return reply
        .header('access-control-allow-origin', '*')
        .header('cache-control', 'public, max-age=3600')
        .type('application/json')
        .send(metadata.body)
    })
    app.options(path, { config: OPEN_CORS }, async (_request, reply) => {
      return reply
        .code(204)
        .header('access-control-allow-origin', '*')
        .header('access-control-allow-methods', 'GET')
        .header('access-control-allow-headers', '*')
        .send()
    })
  }
}

export default wellKnownRoutes
