// undici failures → BackendError, by err.code along the cause chain, never by message.
import t from 'tap'
import { BackendError } from '../../../../src/upstream/backend.ts'
import { toBackendError } from '../../../../src/upstream/http/http-errors.ts'
import { BadReplyError } from '../../../../src/upstream/http/reply-reader.ts'

function coded(code: string, message = 'boom'): Error {
  return Object.assign(new Error(message), { code })
}

const IDLE = { aborted: false, timedOut: false }

const cases: Array<{ name: string; err: unknown; state?: { aborted: boolean; timedOut: boolean }; reason: string; message: string }> = [
  ...['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'EAI_AGAIN',
    'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'UND_ERR_DESTROYED',
    // A failed TLS handshake (backend-tls.ts).
    'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'CERT_HAS_EXPIRED', 'ERR_TLS_CERT_ALTNAME_INVALID', 'ERR_SSL_WRONG_VERSION_NUMBER'].map((code) => ({
    name: `${code} → unreachable`, err: coded(code), reason: 'unreachable', message: `cannot reach backend (${code})`,
  })),
  ...['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT'].map((code) => ({
    name: `${code} → timeout`, err: coded(code), reason: 'timeout', message: `backend did not answer in time (${code})`,
  })),
  { name: 'UND_ERR_RES_EXCEEDED_MAX_SIZE → bad_reply', err: coded('UND_ERR_RES_EXCEEDED_MAX_SIZE'), reason: 'bad_reply', message: 'backend sent an invalid reply (UND_ERR_RES_EXCEEDED_MAX_SIZE)' },
  { name: 'code found on the cause → used', err: new Error('fetch failed', { cause: coded('ECONNREFUSED') }), reason: 'unreachable', message: 'cannot reach backend (ECONNREFUSED)' },
  { name: 'a message that says "ECONNREFUSED" but no code → bad_reply (never by message)', err: new Error('ECONNREFUSED'), reason: 'bad_reply', message: 'backend sent an invalid reply' },
  { name: 'BadReplyError → bad_reply with its message', err: new BadReplyError('backend sent a message that is not JSON'), reason: 'bad_reply', message: 'backend sent an invalid reply (backend sent a message that is not JSON)' },
  { name: 'client aborted → aborted, whatever the code', err: coded('UND_ERR_ABORTED'), state: { aborted: true, timedOut: false }, reason: 'aborted', message: 'request cancelled (UND_ERR_ABORTED)' },
  { name: 'deadline passed → timeout, whatever the code', err: coded('UND_ERR_ABORTED'), state: { aborted: false, timedOut: true }, reason: 'timeout', message: 'backend did not answer in time (UND_ERR_ABORTED)' },
  { name: 'aborted and timed out → aborted (the client went first)', err: new DOMException('x', 'AbortError'), state: { aborted: true, timedOut: true }, reason: 'aborted', message: 'request cancelled' },
  { name: 'not an Error → bad_reply', err: 'weird', reason: 'bad_reply', message: 'backend sent an invalid reply' },
]

t.test('toBackendError: undici error codes → reason', async (t) => {
  for (const entry of cases) {
    const failure = toBackendError('b', entry.err, entry.state ?? IDLE)
    t.match(failure, { name: 'BackendError', backend: 'b', reason: entry.reason, message: entry.message }, entry.name)
    t.equal(failure.cause, entry.err, `${entry.name} (cause kept)`)
  }
})

t.test('toBackendError: a BackendError → the same error', async (t) => {
  const original = new BackendError('b', 'closed', 'gone')
  t.equal(toBackendError('b', original, { aborted: true, timedOut: true }), original)
})
