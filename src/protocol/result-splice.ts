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
// The backend's text is bounded by maxReplyBytes before it gets here.
import type { JsonObject } from './jsonrpc.ts'
import { isJsonObject } from './jsonrpc.ts'
import { META } from './meta.ts'
import { readCacheHints, RESULT_TYPE, type ServerInfo } from './result.ts'

export interface SpliceOptions {
  serverInfo: ServerInfo
  // Cacheable methods carry both cache hints (CACHE-1).
  cacheable: boolean
}

interface Member {
  key: string
  // [start, end) of `"key": value` in the text, and where the value starts.
  start: number
  valueStart: number
  end: number
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d
const OPEN_BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d
const COMMA = 0x2c
const COLON = 0x3a
const ENVELOPE_KEYS: ReadonlySet<string> = new Set(['jsonrpc', 'id', 'result'])
const OWNED_KEYS: ReadonlySet<string> = new Set(['resultType', '_meta', 'ttlMs', 'cacheScope'])

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

// The members of the object starting at `at` ('{'), and the index after its '}'; undefined when
// the text is not such an object or a key is escaped.
function readMembers(text: string, at: number): { members: Member[]; end: number } | undefined {
  if (text.charCodeAt(at) !== OPEN_BRACE) return undefined
  const members: Member[] = []
  let i = skipSpace(text, at + 1)
  if (text.charCodeAt(i) === CLOSE_BRACE) return { members, end: i + 1 }
  for (;;) {
    if (text.charCodeAt(i) !== QUOTE) return undefined
    const keyEnd = skipString(text, i)
    if (keyEnd === -1) return undefined
    const key = text.slice(i + 1, keyEnd - 1)
    if (key.includes('\\')) return undefined
    const colon = skipSpace(text, keyEnd)
    if (text.charCodeAt(colon) !== COLON) return undefined
    const valueStart = skipSpace(text, colon + 1)
    const end = skipValue(text, valueStart)
    if (end === -1) return undefined
    members.push({ key, start: i, valueStart, end })
    i = skipSpace(text, end)
    const c = text.charCodeAt(i)
    if (c === CLOSE_BRACE) return { members, end: i + 1 }
    if (c !== COMMA) return undefined
    i = skipSpace(text, i + 1)
  }
}

// The `result` member's value span, when the text is exactly a response envelope.
function findResult(text: string): { start: number; end: number } | undefined {
  const envelope = readMembers(text, skipSpace(text, 0))
  if (!envelope || skipSpace(text, envelope.end) !== text.length) return undefined
  const seen = new Set<string>()
  let result: Member | undefined
  for (const member of envelope.members) {
    if (!ENVELOPE_KEYS.has(member.key) || seen.has(member.key)) return undefined
    seen.add(member.key)
    if (member.key === 'result') result = member
  }
  return result && { start: result.valueStart, end: result.end }
}

// The members the gateway owns, written as stampResult and stampCacheHints would.
function ownedMembers(result: JsonObject, options: SpliceOptions): string[] {
  const resultType = typeof result.resultType === 'string' ? result.resultType : RESULT_TYPE.complete
  const meta = isJsonObject(result._meta) ? result._meta : undefined
  const owned = [`"resultType":${JSON.stringify(resultType)}`, `"_meta":${JSON.stringify({ ...meta, [META.serverInfo]: options.serverInfo })}`]
  if (options.cacheable) {
    const hints = readCacheHints(result)
    owned.push(`"ttlMs":${hints.ttlMs}`, `"cacheScope":${JSON.stringify(hints.cacheScope)}`)
  }
  return owned
}

// The stamped result's JSON text, or undefined: take the slow path. `result` is the parsed result
// of the same text.
export function spliceResult(text: string, result: JsonObject, options: SpliceOptions): string | undefined {
  if (result.resultType === RESULT_TYPE.inputRequired) return undefined
  const span = findResult(text)
  if (!span) return undefined
  const inner = readMembers(text, span.start)
  if (!inner || inner.end !== span.end) return undefined
  // Duplicate keys: JSON.parse kept one of them, the text would pass on both.
  if (inner.members.length !== Object.keys(result).length) return undefined
  const parts: string[] = []
  for (const member of inner.members) if (!OWNED_KEYS.has(member.key)) parts.push(text.slice(member.start, member.end))
  parts.push(...ownedMembers(result, options))
  return `{${parts.join(',')}}`
}

// The response message around a spliced result, under the client's own id (RPC-4).
export function resultMessageText(id: string | number, resultJson: string): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${resultJson}}`
}
