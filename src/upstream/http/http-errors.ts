// Maps undici failures to BackendError by err.code, never by message.
import { BackendError, type BackendFailure } from '../backend.ts'
import { BadReplyError } from './reply-reader.ts'

const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'UND_ERR_DESTROYED',
])
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT'])
// A TLS handshake that failed (a certificate not trusted, expired or for another name; TLS spoken
// to a plain port) is a connection that could not be made, not a bad reply (backend-tls.ts).
const TLS_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_GET_ISSUER_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN', 'CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID', 'CERT_REVOKED', 'CERT_UNTRUSTED', 'CERT_SIGNATURE_FAILURE',
])

function isUnreachable(code: string): boolean {
  return UNREACHABLE_CODES.has(code) || TLS_CODES.has(code) || code.startsWith('ERR_TLS_') || code.startsWith('ERR_SSL_')
}

function errorCode(err: unknown): string | undefined {
  let current: unknown = err
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    const code = (current as NodeJS.ErrnoException).code
    if (typeof code === 'string') return code
    current = current.cause
  }
  return undefined
}

function classify(err: unknown, state: { aborted: boolean; timedOut: boolean }): BackendFailure {
  if (err instanceof BackendError) return err.reason
  if (state.aborted) return 'aborted'
  if (state.timedOut) return 'timeout'
  if (err instanceof BadReplyError) return 'bad_reply'
  const code = errorCode(err)
  if (code !== undefined && TIMEOUT_CODES.has(code)) return 'timeout'
  if (code !== undefined && isUnreachable(code)) return 'unreachable'
  return 'bad_reply'
}

const DESCRIPTIONS: Record<BackendFailure, string> = {
  unreachable: 'cannot reach backend',
  timeout: 'backend did not answer in time',
  bad_reply: 'backend sent an invalid reply',
  closed: 'backend closed the connection',
  aborted: 'request cancelled',
  queue_full: 'too many calls waiting for this backend',
  queue_timeout: 'no free slot for this backend in time',
  reply_budget: 'the gateway\'s reply memory budget is exhausted',
  unauthorized: 'backend refused the gateway\'s credentials',
}

export function toBackendError(backend: string, err: unknown, state: { aborted: boolean; timedOut: boolean }): BackendError {
  if (err instanceof BackendError) return err
  const reason = classify(err, state)
  const code = errorCode(err)
  const detail = code ? ` (${code})` : err instanceof BadReplyError ? ` (${err.message})` : ''
  return new BackendError(backend, reason, `${DESCRIPTIONS[reason]}${detail}`, { cause: err })
}
