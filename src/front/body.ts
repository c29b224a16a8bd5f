// THE body reader: Fastify reads the body as one string, bounded by its bodyLimit (maxBodyBytes,
// 413 past it), and this parses it once. Registered for application/json only (HTTP-17: any other
// type is 415, refused by the media-type guard before the body is read).
import type { FastifyRequest } from 'fastify'
import { GatewayError } from '../errors.ts'

export const JSON_BODY = 'application/json'

// Plain JSON.parse, as the handler's validation expects; an empty or malformed body is -32700.
export function parseJsonBody(_request: FastifyRequest, body: string, done: (err: Error | null, body?: unknown) => void): void {
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch (err) {
    return done(new GatewayError('MCP_GATEWAY_RPC_PARSE_ERROR', undefined, { cause: err }))
  }
  done(null, parsed)
}
