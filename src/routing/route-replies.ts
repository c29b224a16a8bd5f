// What the router hands back to the transport (router.ts re-exports these): a result, or an error
// with the HTTP status it gets when nothing has been streamed yet (otherwise in band, HTTP-16).
import { BACKEND_ERROR_REWRITES, BACKEND_ERROR_STATUS, GatewayError, IN_BAND_HTTP_STATUS, isUndefinedMcpCode, ORIGIN_KEY, RPC, UPSTREAM_FAILURE_CODES, type ErrorCode } from '../errors.ts'
import type { JsonObject, JsonRpcErrorObject } from '../protocol/jsonrpc.ts'
import { isJsonObject } from '../protocol/jsonrpc.ts'
import type { BackendError } from '../upstream/backend.ts'

// A result may come with `json`: its stamped text, spliced from the backend's reply
// (protocol/result-splice.ts); then `result` is built only when something asks for the object.
export type RouteReply =
  | { ok: true; result: JsonObject; json?: string; toolError?: boolean }
  | { ok: false; error: JsonRpcErrorObject; httpStatus: number; origin: 'gateway' | 'backend'; headers?: Readonly<Record<string, string>>; code?: ErrorCode; received?: JsonRpcErrorObject }

// A spliced result: `json` is what the client gets; the stamped object is built only when asked
// for (a class, so the getter is the prototype's, not a new accessor per reply). `toolError`: the
// unstamped result said `isError: true`, read without building the stamped one.
export class SplicedReply {
  readonly ok = true
  readonly json: string
  readonly toolError: boolean
  readonly #stamp: () => JsonObject
  #result: JsonObject | undefined

  constructor(json: string, stamp: () => JsonObject, toolError: boolean) {
    this.json = json
    this.#stamp = stamp
    this.toolError = toolError
  }

  get result(): JsonObject {
    return (this.#result ??= this.#stamp())
  }
}

export function replyFromGatewayError(err: GatewayError): RouteReply {
  const reply: RouteReply = { ok: false, error: err.toJsonRpcError(), httpStatus: err.httpStatus, origin: 'gateway', code: err.code }
  // A 403 insufficient_scope carries its challenge (AUTH-9).
  if (err.headers) reply.headers = err.headers
  return reply
}

// ERR-7: a gateway-origin failure toward a backend names it and says the gateway produced it.
export function replyFromBackendError(err: BackendError): RouteReply {
  const data = { [ORIGIN_KEY]: 'gateway', backend: err.backend, reason: err.reason }
  return replyFromGatewayError(new GatewayError(UPSTREAM_FAILURE_CODES[err.reason], `${err.backend}: ${err.message}`, { data, cause: err }))
}

// ERR-5: a backend's own JSON-RPC error passes through, rewritten and given a status only where the
// catalogue says (META-4 with ERR-2 for -32021, ERR-8).
// `received`: the backend's own error when a modern client gets another (a legacy client gets it).
export function replyFromBackendRpcError(error: JsonRpcErrorObject, params: JsonObject): RouteReply {
  if (isUndefinedMcpCode(error.code)) {
    return { ok: false, error: { ...error, code: RPC.internalError }, httpStatus: IN_BAND_HTTP_STATUS, origin: 'backend', received: error } // ERR-3
  }
  const rewrite = BACKEND_ERROR_REWRITES.get(error.code)
  const data = isJsonObject(error.data) ? error.data : {}
  const key = rewrite?.dataParam ?? ''
  // sep-2164: data.uri is always the requested URI: `params.uri` (resources/read), else a
  // completion's `ref.uri`, else what the backend put there; never dropped.
  const ref = isJsonObject(params.ref) ? params.ref : {}
  const passed = rewrite === undefined ? error : { code: rewrite.rpcCode, message: error.message, data: { ...data, [key]: params[key] ?? ref[key] ?? data[key] } }
  return { ok: false, error: passed, httpStatus: BACKEND_ERROR_STATUS.get(passed.code) ?? IN_BAND_HTTP_STATUS, origin: 'backend' }
}
