// The practical ceiling of our stack: Fastify + an undici Pool doing nothing but POST /mcp →
// forward the body → stream the reply back (JSON or SSE), cancelling upstream when the client goes
// away. No checks. As the speed target defines it (issue "one front door"), the request body is
// parsed (Fastify's own JSON parser) and re-serialised; with BENCH_RAW=1 the raw bytes are passed
// on unparsed instead (the "bare-raw" row). Env: BENCH_UPSTREAM (backend MCP URL, loopback only),
// BENCH_CONNECTIONS (pool size). Prints `LISTENING <url>` once ready.
import type { IncomingHttpHeaders } from 'node:http'
import { fastify, type FastifyReply, type FastifyRequest } from 'fastify'
import { Pool } from 'undici'

const DEFAULT_CONNECTIONS = 256
const MAX_BODY_BYTES = 4 * 1024 * 1024
const FORWARDED_HEADERS = ['content-type', 'accept', 'mcp-protocol-version', 'mcp-method', 'mcp-name'] as const
const RETURNED_HEADERS = ['content-type', 'cache-control', 'x-accel-buffering'] as const
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]'])

function pickHeaders(source: IncomingHttpHeaders, names: readonly string[]): Record<string, string> {
  const picked: Record<string, string> = {}
  for (const name of names) {
    const value = source[name]
    if (typeof value === 'string') picked[name] = value
  }
  return picked
}

function readUpstream(): URL {
  const url = new URL(process.env.BENCH_UPSTREAM ?? '')
  if (!LOOPBACK_HOSTS.has(url.hostname)) throw new Error(`upstream must be loopback, got ${url.hostname}`)
  return url
}

async function forward(pool: Pool, path: string, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const controller = new AbortController()
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) controller.abort()
  })
  const upstream = await pool.request({
    path,
    method: 'POST',
    headers: pickHeaders(request.headers, FORWARDED_HEADERS),
    body: Buffer.isBuffer(request.body) ? request.body : JSON.stringify(request.body),
    signal: controller.signal
  })
  reply.code(upstream.statusCode).headers(pickHeaders(upstream.headers, RETURNED_HEADERS))
  // A JSON reply is complete anyway: send it with a length rather than chunked. SSE streams.
  if (upstream.headers['content-type'] === 'application/json') return reply.send(Buffer.from(await upstream.body.arrayBuffer()))
  return reply.send(upstream.body)
}

async function main(): Promise<void> {
  const upstream = readUpstream()
  const connections = Number(process.env.BENCH_CONNECTIONS ?? DEFAULT_CONNECTIONS)
  const pool = new Pool(upstream.origin, { connections, pipelining: 1 })
  const app = fastify({ logger: false, bodyLimit: MAX_BODY_BYTES })
  if (process.env.BENCH_RAW === '1') {
    app.removeContentTypeParser('application/json')
    app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body))
  }
  app.post('/mcp', (request, reply) => forward(pool, upstream.pathname, request, reply))
  app.addHook('onClose', async () => pool.close())
  const url = await app.listen({ host: '127.0.0.1', port: 0 })
  process.stdout.write(`LISTENING ${url}\n`)
  let stopping = false
  const stop = (): void => {
    if (stopping) return
    stopping = true
    app.close().then(() => process.exit(0), () => process.exit(1))
  }
  process.once('SIGTERM', stop)
  // The harness holds our stdin: if it dies, so do we.
  process.stdin.once('end', stop).resume()
}

main().catch((err: unknown) => {
  process.stderr.write(`bare-forwarder: ${String(err)}\n`)
  process.exit(1)
})
