// One POST to an HTTP backend with the gateway's credential for it (AUTH-8): asked of the
// backend's credential source for the caller, one retry with a fresh one after a 401 (the cached
// token may have been revoked early), and a 401 or 403 to a credential becomes a gateway-origin
// failure: the backend's challenge names its own authorization server and never reaches the
// client (AUTH-8: a client fetching a token for the backend would be token passthrough).
import { ANONYMOUS, type Principal } from '../../auth/principal.ts'
import { BACKEND_FAILURE, BackendError } from '../backend.ts'
import type { HttpReply } from './http-reply.ts'

export interface CredentialSource {
  // A credential that exists only for a caller (token exchange): the gateway's own requests
  // (probes, listen fan-in) go without one.
  readonly perCaller: boolean
  authorization(principal: Principal): Promise<string>
  invalidate(principal: Principal, value: string): void
}

export interface AuthorizedSend<R extends HttpReply> {
  backend: string
  credentials: CredentialSource | undefined
  principal: Principal | undefined
  // One attempt; `authorization` is the header value to send (absent: the static headers only).
  send: (authorization: string | undefined) => Promise<R>
}

const REFUSED = new Set([401, 403])

// The credential's header value (undefined without a source); a failure to get one is the
// backend's `unauthorized` failure, its message naming at most the authorization server's error.
export async function obtainCredential(backend: string, credentials: CredentialSource | undefined, principal: Principal): Promise<string | undefined> {
  if (!credentials) return undefined
  try {
    return await credentials.authorization(principal)
  } catch (err) {
    throw new BackendError(backend, BACKEND_FAILURE.unauthorized, `no credential for this backend: ${err instanceof Error ? err.message : String(err)}`, { cause: err })
  }
}

// Without a credential source there is nothing to attach or refresh: the request goes as it is.
export function sendAuthorized<R extends HttpReply>(options: AuthorizedSend<R>): Promise<R> {
  return options.credentials === undefined ? options.send(undefined) : sendWithCredential(options)
}

async function sendWithCredential<R extends HttpReply>(options: AuthorizedSend<R>): Promise<R> {
  const principal = options.principal ?? ANONYMOUS
  const credentials = options.principal === undefined && options.credentials?.perCaller ? undefined : options.credentials
  let authorization = await obtainCredential(options.backend, credentials, principal)
  let response = await options.send(authorization)
  if (response.statusCode === 401 && authorization !== undefined) {
    await response.body.dump?.()
    credentials!.invalidate(principal, authorization)
    authorization = await obtainCredential(options.backend, credentials, principal)
    response = await options.send(authorization)
  }
  // Without a credential source the reply is read as any other (a challenge header is never
  // relayed anyway; only a JSON-RPC error body can reach the client).
  if (authorization === undefined || !REFUSED.has(response.statusCode)) return response
  await response.body.dump?.()
  throw new BackendError(options.backend, BACKEND_FAILURE.unauthorized, `backend answered HTTP ${response.statusCode} to the gateway's credentials`)
}
