// The request id of the access line and every log line of a request: the caller's X-Request-Id when
// it sends one (kept to a safe alphabet and 128 characters), else a random UUID, unique across
// replicas (README "Operations").
import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'

export const REQUEST_ID_HEADER = 'x-request-id'
const MAX_REQUEST_ID_CHARS = 128
const UNSAFE = /[^A-Za-z0-9._:/+=@-]/g

export function requestId(req: IncomingMessage): string {
  const given = req.headers[REQUEST_ID_HEADER]
  const text = Array.isArray(given) ? given[0] : given
  const safe = text?.replace(UNSAFE, '').slice(0, MAX_REQUEST_ID_CHARS)
  return safe === undefined || safe === '' ? randomUUID() : safe
}
