// Result stamping by splicing (the fast path of stampResult + stampCacheHints, RPC-6, META-5,
// CACHE-1): the backend's reply text, read by result-scan.ts, is passed through, and only the
// members the gateway owns are cut out and written anew. Pure. Nothing is copied but the runs of
// members kept. An input_required result is never spliced: it is sealed (MRTR-1).
import { isJsonObject, type JsonObject } from './jsonrpc.ts'
import { META } from './meta.ts'
import { readCacheHints, RESULT_TYPE, type ServerInfo } from './result.ts'
import { OWNED_KEY, type ResultScan } from './result-scan.ts'

// Owned members are cut; `isError` is the backend's and stays. ttlMs and cacheScope are owned
// only for cacheable results.
function isCut(key: number, cacheable: boolean): boolean {
  if (key === OWNED_KEY.resultType || key === OWNED_KEY.meta) return true
  return cacheable && (key === OWNED_KEY.ttlMs || key === OWNED_KEY.cacheScope)
}

function parsedValue(scan: ResultScan, key: number): unknown {
  const raw = scan.valueOf(key)
  return raw === undefined ? undefined : JSON.parse(raw)
}

// The backend's members that are kept, as runs of its text joined by commas.
function keptMembers(scan: ResultScan, cacheable: boolean): string {
  const { text, members } = scan
  let kept = ''
  let runStart = -1
  let runEnd = -1
  for (let m = 0; m < members.length; m += 4) {
    if (!isCut(members[m + 3], cacheable)) {
      if (runStart === -1) runStart = members[m]
      runEnd = members[m + 2]
      continue
    }
    if (runStart !== -1) kept += (kept === '' ? '' : ',') + text.slice(runStart, runEnd)
    runStart = -1
  }
  if (runStart !== -1) kept += (kept === '' ? '' : ',') + text.slice(runStart, runEnd)
  return kept
}

// Result stamping by splicing, for one gateway identity (serverInfo).
export class ResultSplicer {
  readonly #serverInfo: ServerInfo
  // `"_meta":{…serverInfo}` for a result without _meta of its own, built once.
  readonly #metaOnly: string

  constructor(serverInfo: ServerInfo) {
    this.#serverInfo = serverInfo
    this.#metaOnly = `"_meta":${JSON.stringify({ [META.serverInfo]: serverInfo })}`
  }

  // The stamped result's JSON text, or undefined for an input_required result (take the slow
  // path). Cacheable results carry both cache hints (CACHE-1).
  splice(scan: ResultScan, cacheable: boolean): string | undefined {
    const resultType = scan.resultType ?? RESULT_TYPE.complete
    if (resultType === RESULT_TYPE.inputRequired) return undefined
    const kept = keptMembers(scan, cacheable)
    return `{${kept}${kept === '' ? '' : ','}${this.#owned(scan, resultType, cacheable)}}`
  }

  // The members the gateway owns, written as stampResult and stampCacheHints would.
  #owned(scan: ResultScan, resultType: string, cacheable: boolean): string {
    const meta = parsedValue(scan, OWNED_KEY.meta)
    const metaText = isJsonObject(meta) ? `"_meta":${JSON.stringify({ ...meta, [META.serverInfo]: this.#serverInfo })}` : this.#metaOnly
    const type = resultType === RESULT_TYPE.complete ? '"resultType":"complete"' : `"resultType":${JSON.stringify(resultType)}`
    if (!cacheable) return `${type},${metaText}`
    const hints = readCacheHints({ ttlMs: parsedValue(scan, OWNED_KEY.ttlMs), cacheScope: parsedValue(scan, OWNED_KEY.cacheScope) } as JsonObject)
    return `${type},${metaText},"ttlMs":${hints.ttlMs},"cacheScope":${JSON.stringify(hints.cacheScope)}`
  }
}

// The response message around a spliced result, under the client's own id (RPC-4).
export function resultMessageText(id: string | number, resultJson: string): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${resultJson}}`
}
