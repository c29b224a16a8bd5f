// GET and DELETE /mcp for legacy sessions (LEGACY-5, LEGACY-9..11): the session's stream for
// messages outside requests, and the end of the session. A request naming no session never gets
// here (405, HTTP-10). Every refusal carries a JSON-RPC error body from the catalogue.
import type { IncomingHttpHeaders, ServerResponse } from 'node:http'
import { ANONYMOUS, type Principal } from '../../auth/principal.ts'
import { GatewayError } from '../../errors.ts'
import type { Logger } from '../../observability/logger.ts'
import { OUTCOME, type GatewayMetrics, type Outcome } from '../../observability/metrics.ts'
import type { SessionClaims } from '../../protocol/legacy/session-token.ts'
import type { SessionRegistry } from '../../shared-state/session-registry.ts'
import { ReplyStream, type StreamQueueLimit } from '../reply-stream.ts'
import type { StreamSlots } from '../stream-slots.ts'
import { callerKey } from '../../routing/call-scheduler.ts'
import { clientFields } from '../access.ts'
import type { SessionStreams } from './session-streams.ts'
import type { LegacySessions } from './sessions.ts'
import { clockMs, secondsSince } from '../../observability/clock.ts'
import { writeAccessLine } from '../../observability/access-line.ts'

export interface SessionHttpDeps {
  sessions: LegacySessions
  registry: SessionRegistry
  streams: SessionStreams
  metrics: GatewayMetrics
  // The access line's client address from X-Forwarded-For (behind a load balancer).
  trustProxy?: boolean
  // Long-lived streams per client and in all (README "Limits"); absent: unbounded.
  streamSlots?: StreamSlots
  // The bound on a stream's write queue (README "Limits").
  streamLimit?: StreamQueueLimit
}

export interface SessionHttpRequest {
  headers: IncomingHttpHeaders
  res: ServerResponse
  log: Logger
  reqId: string
  url?: string
  remoteAddress?: string
  // The caller, admitted by the front guards (AUTH-6, AUTH-16); absent: anonymous.
  principal?: Principal
}

// The caller's session (the caller was admitted by the front guards), bound to that caller.
async function openSession(deps: SessionHttpDeps, req: SessionHttpRequest): Promise<SessionClaims | GatewayError> {
  return deps.sessions.openFrom(req.headers, (req.principal ?? ANONYMOUS).binding)
}

// LEGACY-9: the client must accept an event stream (a missing Accept is taken as */*).
function acceptsEventStream(headers: IncomingHttpHeaders): boolean {
  const accept = headers.accept
  return accept === undefined || /text\/event-stream|\*\/\*/.test(accept)
}

export async function handleSessionGet(deps: SessionHttpDeps, get: SessionHttpRequest): Promise<void> {
  const started = clockMs()
  const client = callerKey(get.principal, get.remoteAddress)
  const full = deps.streamSlots?.take(client)
  if (full !== undefined) return refuse(deps, get, full, started)
  try {
    const session = await admitStream(deps, get)
    if (session instanceof GatewayError) return refuse(deps, get, session, started)
    const onOpen = (): void => get.log.info({ reqId: get.reqId }, 'legacy session stream opened')
    await deps.streams.serve(session, new ReplyStream(get.res, deps.metrics.sseStreams.legacy_get, deps.streamLimit), get.res, onOpen)
    account(deps, get, { outcome: OUTCOME.ok, status: 200 }, started)
  } finally {
    deps.streamSlots?.release(client)
  }
}

async function admitStream(deps: SessionHttpDeps, get: SessionHttpRequest): Promise<SessionClaims | GatewayError> {
  const session = await openSession(deps, get)
  if (session instanceof GatewayError) return session
  const headers = get.headers
  if (!acceptsEventStream(headers)) return new GatewayError('MCP_GATEWAY_HTTP_NOT_ACCEPTABLE')
  // LEGACY-11: no event history is kept, so no stream can be resumed.
  if (headers['last-event-id'] !== undefined) return new GatewayError('MCP_GATEWAY_SESSION_RESUME_UNSUPPORTED')
  const claimed = await deps.registry.claimStream(session.id, session.expiresAt).catch((err: unknown) => err)
  if (claimed instanceof GatewayError) return claimed
  if (claimed instanceof Error) throw claimed
  if (claimed !== true) return new GatewayError('MCP_GATEWAY_SESSION_STREAM_OPEN') // LEGACY-10
  return session
}

// LEGACY-5: the id stays refused (404) until it would have expired; the session's state goes.
export async function handleSessionDelete(deps: SessionHttpDeps, del: SessionHttpRequest): Promise<void> {
  const started = clockMs()
  const session = await openSession(deps, del)
  if (session instanceof GatewayError) return refuse(deps, del, session, started)
  // Several replicas: every one must know, or the DELETE is refused (503) and can be repeated.
  const ended = await deps.sessions.end(session).then(() => deps.registry.forget(session.id)).catch((err: unknown) => err)
  if (ended instanceof GatewayError) return refuse(deps, del, ended, started)
  if (ended !== undefined) throw ended
  deps.metrics.sessions.ended(session.id)
  deps.streams.end(session.id)
  new ReplyStream(del.res, deps.metrics.sseStreams.response).finishEmpty(204)
  account(deps, del, { outcome: OUTCOME.ok, status: 204 }, started)
}

function refuse(deps: SessionHttpDeps, req: SessionHttpRequest, err: GatewayError, started: number): void {
  new ReplyStream(req.res, deps.metrics.sseStreams.response).finish({ jsonrpc: '2.0', error: err.toJsonRpcError() }, err.httpStatus, err.headers)
  account(deps, req, { outcome: OUTCOME.rejected, status: err.httpStatus, code: err.code }, started)
}

// One metric observation and one access line per request, as for POST.
function account(deps: SessionHttpDeps, req: SessionHttpRequest, access: { outcome: Outcome; status: number; code?: string }, started: number): void {
  const seconds = secondsSince(started)
  deps.metrics.observeRequest('other', access.outcome, seconds)
  const client = clientFields(req.headers, req.remoteAddress, deps.trustProxy === true)
  writeAccessLine(req.log, { reqId: req.reqId, httpMethod: req.res.req.method }, access, client, { durationMs: Math.round(seconds * 1e6) / 1e3 })
}
