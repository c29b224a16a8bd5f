// The front guards: every request to the MCP endpoint, whatever its method, passes this one ordered
// list before its body is read (plugins/security.ts runs it in one onRequest hook). Each guard is a
// function of the request's method and headers: undefined to let it through, or the GatewayError
// to refuse it with. A guard may answer with a promise (authentication and the rate limit); the
// common, synchronous case allocates none. New guards go into createFrontGuards: the hook does not
// change.
import type { IncomingHttpHeaders } from 'node:http'
import { GatewayError } from '../errors.ts'
import type { AdmitRequest } from '../auth/gateway-auth.ts'
import type { AuthOutcome } from '../auth/authenticator.ts'
import type { Principal } from '../auth/principal.ts'
import { isHostAllowed, isOriginAllowed, parseHost, targetAuthority } from '../protocol/origin.ts'

// What a guard may look at (a FastifyRequest is one; tests pass plain objects).
export interface GuardRequest {
  readonly method: string
  readonly headers: IncomingHttpHeaders
  // The host the client asked for (Fastify's request.host): Host, or `:authority` on HTTP/2, or
  // X-Forwarded-Host behind a trusted proxy (`trustProxy`); absent: the Host header.
  readonly host?: string
  // The request target as sent (absolute-form "http://host/mcp" names the host itself).
  readonly url?: string
  // The peer (rate limits of anonymous callers).
  readonly socket?: { readonly remoteAddress?: string }
  // Set by the admission guard: who is calling (the handlers read it).
  principal?: Principal
}

export type GuardVerdict = GatewayError | undefined
export type Guard = (request: GuardRequest) => GuardVerdict | PromiseLike<GuardVerdict>
// Called once: with nothing when every guard passed, else with the refusal (or a guard's failure).
export type GuardDone = (error?: Error) => void

export interface FrontGuardOptions {
  allowedHosts: readonly string[]
  allowedOrigins: readonly string[]
  maxBodyBytes: number
  // Authentication and the rate limit, when either is configured (AUTH-6, AUTH-16).
  auth?: Admitter
}

export interface Admitter {
  admit(request: AdmitRequest): Promise<AuthOutcome>
}

// SEC-1 (DNS rebinding): the host must be well formed (RFC 9112 §3.2: else 400; two Host headers
// arrive joined by a comma, since the server joins duplicates, so they are malformed too) and in the
// allow-list (else 403). An absolute-form target's authority wins over Host (RFC 9112 §3.2.2); on
// HTTP/2 the host is `:authority`, behind a trusted proxy X-Forwarded-Host (request.host). The
// last Host let through is remembered: the common request re-checks nothing.
export function hostGuard(allowedHosts: readonly string[]): Guard {
  let lastAllowed: string | undefined
  return (request) => {
    const url = request.url
    const raw = url === undefined || url.charCodeAt(0) === 47 ? request.host || request.headers.host : targetAuthority(url)
    if (raw === lastAllowed && raw !== undefined) return undefined
    const host = parseHost(raw)
    if (host === undefined) return new GatewayError('MCP_GATEWAY_HTTP_HOST_INVALID')
    if (!isHostAllowed(allowedHosts, host)) return new GatewayError('MCP_GATEWAY_HTTP_HOST_FORBIDDEN')
    lastAllowed = raw
    return undefined
  }
}

// SEC-2: a browser's Origin must be in the allow-list; no Origin (a non-browser client) passes.
export function originGuard(allowedOrigins: readonly string[]): Guard {
  const refusal = 'MCP_GATEWAY_HTTP_ORIGIN_FORBIDDEN'
  return (request) => (isOriginAllowed(allowedOrigins, request.headers.origin) ? undefined : new GatewayError(refusal))
}

// AUTH-6, AUTH-16: who is calling and whether they are over their rate, for every request on the
// endpoint whatever its method and era, before its body is read (401/403/429 with their headers).
// The principal is left on the request for the handler.
export function admitGuard(auth: Admitter): Guard {
  return async (request) => {
    const outcome = await auth.admit({ headers: request.headers, url: request.url, remoteAddress: request.socket?.remoteAddress })
    if (!outcome.ok) return outcome.error
    request.principal = outcome.principal
    return undefined
  }
}

const JSON_MEDIA_TYPE = 'application/json'

// "application/json", any case, optionally with parameters ("; charset=utf-8"); nothing else
// ("application/jsonl", "application/json-seq", "text/plain", none at all).
export function isJsonMediaType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false
  if (contentType === JSON_MEDIA_TYPE) return true
  const semicolon = contentType.indexOf(';')
  const type = (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim()
  return type.length === JSON_MEDIA_TYPE.length && type.toLowerCase() === JSON_MEDIA_TYPE
}

// HTTP-17: a POST body is JSON; anything else is 415 before it is read. Other methods carry no body.
export const mediaTypeGuard: Guard = (request) =>
  request.method !== 'POST' || isJsonMediaType(request.headers['content-type']) ? undefined : new GatewayError('MCP_GATEWAY_HTTP_UNSUPPORTED_MEDIA_TYPE')

// 413 on the declared size, before a byte is read; a body streamed without (or under) its
// Content-Length is bounded while read (Fastify's bodyLimit, the same maxBodyBytes).
export function bodySizeGuard(maxBodyBytes: number): Guard {
  return (request) => {
    const declared = request.headers['content-length']
    return declared !== undefined && Number(declared) > maxBodyBytes ? new GatewayError('MCP_GATEWAY_HTTP_BODY_TOO_LARGE') : undefined
  }
}

// THE list, in the order the refusals are decided: who may talk to us at all (Host, Origin, then
// the caller's credentials and rate), then what they send (media type, size).
export function createFrontGuards(options: FrontGuardOptions): readonly Guard[] {
  const admission = options.auth === undefined ? [] : [admitGuard(options.auth)]
  return Object.freeze([
    hostGuard(options.allowedHosts),
    originGuard(options.allowedOrigins),
    ...admission,
    mediaTypeGuard,
    bodySizeGuard(options.maxBodyBytes),
  ])
}

// Runs the guards in order and calls done exactly once. Synchronous guards are called in a plain
// loop (no promise, no closure); an asynchronous one suspends the loop, which resumes after it.
export function runGuards(guards: readonly Guard[], request: GuardRequest, done: GuardDone, from = 0): void {
  for (let i = from; i < guards.length; i++) {
    let verdict: GuardVerdict | PromiseLike<GuardVerdict>
    try {
      verdict = guards[i](request)
    } catch (err) {
      return done(err as Error)
    }
    if (verdict === undefined) continue
    if (verdict instanceof GatewayError) return done(verdict)
    verdict.then(
      (settled) => (settled === undefined ? runGuards(guards, request, done, i + 1) : done(settled)),
      (err: unknown) => done(err instanceof Error ? err : new Error(String(err))),
    )
    return
  }
  done()
}
