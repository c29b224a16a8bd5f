// The hot path for the common MCP request: POST to the endpoint, JSON, no Origin (every non-browser
// client). It is served straight from node:http, with the same checks and the same handler as the
// Fastify route, minus the framework's per-request machinery; anything else (browsers, other
// methods and paths, odd content types) goes through Fastify as before.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { GatewayError } from '../errors.ts'
import type { Logger } from '../observability/logger.ts'
import { OUTCOME } from '../observability/metrics.ts'
import { isHostAllowed } from '../protocol/origin.ts'
import { handleMcpPost, type McpHandlerDeps } from './mcp-handler.ts'

export interface FastPathOptions {
  endpoint: string
  allowedHosts: readonly string[]
  maxBodyBytes: number
  deps: McpHandlerDeps
  log: Logger
  // While the server drains, new requests go to Fastify (which answers 503).
  isClosing: () => boolean
}

export type FastPath = (req: IncomingMessage, res: ServerResponse) => boolean

function isEligible(req: IncomingMessage, endpoint: string): boolean {
  const type = req.headers['content-type']
  return req.method === 'POST' && req.url === endpoint && req.headers.origin === undefined &&
    typeof type === 'string' && type.startsWith('application/json')
}

export function createFastPath(options: FastPathOptions): FastPath {
  let nextId = 0
  const refuse = (res: ServerResponse, reqId: string, err: GatewayError, started: bigint): void => {
    const body = JSON.stringify({ jsonrpc: '2.0', error: err.toJsonRpcError() })
    res.writeHead(err.httpStatus, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body)
    const seconds = Number(process.hrtime.bigint() - started) / 1e9
    options.deps.metrics.observeRequest('invalid', OUTCOME.rejected, seconds)
    options.log.info({ reqId, outcome: OUTCOME.rejected, code: err.code, status: err.httpStatus }, 'mcp request')
  }
  return (req, res) => {
    if (!isEligible(req, options.endpoint) || options.isClosing()) return false
    const started = process.hrtime.bigint()
    const reqId = `fast-${++nextId}`
    // SEC-1: the Host allow-list, as the Fastify guard does.
    if (!isHostAllowed(options.allowedHosts, req.headers.host)) {
      req.resume()
      refuse(res, reqId, new GatewayError('MCP_GATEWAY_HTTP_HOST_FORBIDDEN'), started)
      return true
    }
    readBody(req, options.maxBodyBytes).then((text) => {
      let body: unknown
      try {
        body = JSON.parse(text)
      } catch {
        return refuse(res, reqId, new GatewayError('MCP_GATEWAY_RPC_PARSE_ERROR'), started)
      }
      return handleMcpPost(options.deps, { headers: req.headers, body, res, log: options.log, reqId, url: req.url, remoteAddress: req.socket.remoteAddress })
    }, (err: GatewayError) => refuse(res, reqId, err, started)).catch((err: unknown) => {
      options.log.error({ reqId, err }, 'unhandled error on the fast path')
      if (!res.headersSent) res.destroy()
    })
    return true
  }
}

// The body as text, up to the limit (413 past it, checked against Content-Length first).
function readBody(req: IncomingMessage, maxBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'])
    if (declared > maxBytes) {
      req.resume()
      return reject(new GatewayError('MCP_GATEWAY_HTTP_BODY_TOO_LARGE'))
    }
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > maxBytes) {
        req.removeAllListeners('data')
        req.resume()
        reject(new GatewayError('MCP_GATEWAY_HTTP_BODY_TOO_LARGE'))
      } else chunks.push(chunk)
    })
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}
