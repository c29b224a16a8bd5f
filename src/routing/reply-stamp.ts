// A routed call's result as the client gets it: stamped with resultType, the gateway's serverInfo
// and, for cacheable methods, both cache hints (RPC-6, META-5, CACHE-1); a backend's scanned reply
// stamped by splicing its text (result-splice.ts), the stamped object built only when asked for.
import type { JsonObject } from '../protocol/jsonrpc.ts'
import { stampCacheHints, stampResult, type ServerInfo } from '../protocol/result.ts'
import { ResultSplicer } from '../protocol/result-splice.ts'
import type { ResultScan } from '../protocol/result-scan.ts'
import type { ValidRequest } from '../protocol/validate.ts'
import { SplicedReply, type RouteReply } from './route-replies.ts'

export class ReplyStamp {
  readonly #serverInfo: ServerInfo
  readonly #splicer: ResultSplicer

  constructor(serverInfo: ServerInfo) {
    this.#serverInfo = serverInfo
    this.#splicer = new ResultSplicer(serverInfo)
  }

  complete(valid: ValidRequest, result: JsonObject): RouteReply {
    return { ok: true, result: this.#stamp(valid, result), toolError: result.isError === true }
  }

  spliced(valid: ValidRequest, reply: { result: JsonObject; toolError?: boolean }, scan: ResultScan): RouteReply {
    const json = this.#splicer.splice(scan, valid.spec.cacheable)
    if (json === undefined) return this.complete(valid, reply.result)
    return new SplicedReply(json, () => this.#stamp(valid, reply.result), reply.toolError === true)
  }

  #stamp(valid: ValidRequest, result: JsonObject): JsonObject {
    const stamped = stampResult(result, this.#serverInfo)
    return valid.spec.cacheable ? stampCacheHints(stamped) : stamped
  }
}
