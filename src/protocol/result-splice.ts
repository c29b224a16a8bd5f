// Result stamping by splicing (the fast path of stampResult + stampCacheHints, RPC-6, META-5,
// CACHE-1): the backend's reply text is passed through, and only the members the gateway owns are
// cut out and written anew. Pure. The text must already have been parsed (JSON.parse) by the
// reader, which checked the id; this checks the shape and answers undefined for anything unusual,
// which then takes the slow path (parse, stamp, serialise):
//   - the text is one JSON object (JSON whitespace around it only) with members `jsonrpc`, `id`
//     and `result`, each at most once, and nothing else;
//   - `result` is an object whose members are those of the parsed result (no duplicate keys);
//   - no key of those two levels is written with an escape;
//   - the result is not `input_required` (it is sealed, MRTR-1).
// The backend's text is bounded by maxReplyBytes before it gets here. The text is walked once,
// strings skipped with indexOf; nothing is copied but the runs of members kept.
import type { JsonObject } from './jsonrpc.ts'
import { isJsonObject } from './jsonrpc.ts'
import { META } from './meta.ts'
import { readCacheHints, RESULT_TYPE, type ServerInfo } from './result.ts'

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d
const OPEN_BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d
const COMMA = 0x2c
const COLON = 0x3a
const OWNED = ['resultType', '_meta']
const OWNED_IF_CACHEABLE = ['ttlMs', 'cacheScope']

// JSON whitespace only (String.prototype.trim also strips a BOM and other spaces JSON refuses).
function skipSpace(text: string, at: number): number {
  let i = at
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break
  }
  return i
}

// `at` is an opening quote; returns the index after the closing one, or -1.
function skipString(text: string, at: number): number {
  let i = at
  for (;;) {
    i = text.indexOf('"', i + 1)
    if (i === -1) return -1
    let slashes = 0
    while (text.charCodeAt(i - 1 - slashes) === BACKSLASH) slashes++
    if (slashes % 2 === 0) return i + 1
  }
}

// A key (at its opening quote) written without escapes: the index after its closing quote, or -1.
function skipKey(text: string, at: number): number {
  for (let i = at + 1; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) return i + 1
    if (c === BACKSLASH) return -1
  }
  return -1
}

function skipNested(text: string, at: number): number {
  let depth = 0
  for (let i = at; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) {
      const end = skipString(text, i)
      if (end === -1) return -1
      i = end - 1
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (--depth === 0) return i + 1
    }
  }
  return -1
}

// Returns the index after the value starting at `at`, or -1 when the text ends first.
function skipValue(text: string, at: number): number {
  const c = text.charCodeAt(at)
  if (c === QUOTE) return skipString(text, at)
  if (c === OPEN_BRACE || c === OPEN_BRACKET) return skipNested(text, at)
  let i = at
  for (; i < text.length; i++) {
    const d = text.charCodeAt(i)
    if (d === COMMA || d === CLOSE_BRACE || d === CLOSE_BRACKET || d === 0x20 || d === 0x0a || d === 0x0d || d === 0x09) break
  }
  return i === at || i === text.length ? -1 : i
}

function keyIs(text: string, keyStart: number, keyEnd: number, name: string): boolean {
  return keyEnd - keyStart === name.length + 2 && text.startsWith(name, keyStart + 1)
}

function keyIn(text: string, keyStart: number, keyEnd: number, names: readonly string[]): boolean {
  for (const name of names) if (keyIs(text, keyStart, keyEnd, name)) return true
  return false
}

// Visits the members of the object starting at `at` ('{'): `member(keyStart, keyEnd, valueStart)`
// for each, which returns the index after the value (or -1 to stop). Returns the index after the
// object's '}', or -1 when it is not such an object or a key is escaped.
type MemberVisitor = (keyStart: number, keyEnd: number, valueStart: number) => number

function eachMember(text: string, at: number, member: MemberVisitor): number {
  if (text.charCodeAt(at) !== OPEN_BRACE) return -1
  let i = skipSpace(text, at + 1)
  if (text.charCodeAt(i) === CLOSE_BRACE) return i + 1
  for (;;) {
    if (text.charCodeAt(i) !== QUOTE) return -1
    const keyEnd = skipKey(text, i)
    if (keyEnd === -1) return -1
    const colon = skipSpace(text, keyEnd)
    if (text.charCodeAt(colon) !== COLON) return -1
    const end = member(i, keyEnd, skipSpace(text, colon + 1))
    if (end === -1) return -1
    i = skipSpace(text, end)
    const c = text.charCodeAt(i)
    if (c === CLOSE_BRACE) return i + 1
    if (c !== COMMA) return -1
    i = skipSpace(text, i + 1)
  }
}

// The envelope's members, one bit each (each may come once); 0 for any other key.
const RESULT_BIT = 4
function envelopeBit(text: string, keyStart: number, keyEnd: number): number {
  if (keyIs(text, keyStart, keyEnd, 'result')) return RESULT_BIT
  if (keyIs(text, keyStart, keyEnd, 'id')) return 2
  return keyIs(text, keyStart, keyEnd, 'jsonrpc') ? 1 : 0
}

// Walks the envelope once; the result object is walked by `result` (at its '{'), which returns the
// index after it. False unless the text is exactly a response envelope with a result.
function walkEnvelope(text: string, result: (valueStart: number) => number): boolean {
  let seen = 0
  const end = eachMember(text, skipSpace(text, 0), (keyStart, keyEnd, valueStart) => {
    const bit = envelopeBit(text, keyStart, keyEnd)
    if (bit === 0 || (seen & bit) !== 0) return -1
    seen |= bit
    return bit === RESULT_BIT ? result(valueStart) : skipValue(text, valueStart)
  })
  return end !== -1 && skipSpace(text, end) === text.length && (seen & RESULT_BIT) !== 0
}

function countKeys(result: JsonObject): number {
  let count = 0
  for (const key in result) if (Object.hasOwn(result, key)) count++
  return count
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

  // The stamped result's JSON text, or undefined: take the slow path. `result` is the parsed
  // result of the same text; cacheable results carry both cache hints (CACHE-1).
  splice(text: string, result: JsonObject, cacheable: boolean): string | undefined {
    if (result.resultType === RESULT_TYPE.inputRequired) return undefined
    // The backend's members, less those the gateway owns, as runs of text between them.
    let kept = ''
    let runStart = -1
    let runEnd = -1
    let members = 0
    const flush = (): void => {
      if (runStart !== -1) kept += (kept === '' ? '' : ',') + text.slice(runStart, runEnd)
      runStart = -1
    }
    const walkResult = (at: number): number => eachMember(text, at, (keyStart, keyEnd, valueStart) => {
      const valueEnd = skipValue(text, valueStart)
      members++
      if (keyIn(text, keyStart, keyEnd, OWNED) || (cacheable && keyIn(text, keyStart, keyEnd, OWNED_IF_CACHEABLE))) flush()
      else {
        if (runStart === -1) runStart = keyStart
        runEnd = valueEnd
      }
      return valueEnd
    })
    // Duplicate keys: JSON.parse kept one of them, the text would pass on both.
    if (!walkEnvelope(text, walkResult) || members !== countKeys(result)) return undefined
    flush()
    return `{${kept}${kept === '' ? '' : ','}${this.#owned(result, cacheable)}}`
  }

  // The members the gateway owns, written as stampResult and stampCacheHints would.
  #owned(result: JsonObject, cacheable: boolean): string {
    const resultType = typeof result.resultType === 'string' ? result.resultType : RESULT_TYPE.complete
    const meta = isJsonObject(result._meta) ? `"_meta":${JSON.stringify({ ...result._meta, [META.serverInfo]: this.#serverInfo })}` : this.#metaOnly
    const type = resultType === RESULT_TYPE.complete ? '"resultType":"complete"' : `"resultType":${JSON.stringify(resultType)}`
    if (!cacheable) return `${type},${meta}`
    const hints = readCacheHints(result)
    return `${type},${meta},"ttlMs":${hints.ttlMs},"cacheScope":${JSON.stringify(hints.cacheScope)}`
  }
}

// The response message around a spliced result, under the client's own id (RPC-4).
export function resultMessageText(id: string | number, resultJson: string): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${resultJson}}`
}
