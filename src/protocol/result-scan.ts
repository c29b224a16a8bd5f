// A backend's response text read without JSON.parse (issue 8): one walk checks that it is strict
// JSON (json-scan.ts) and exactly a result envelope for the expected id, and notes where the
// result's members are, so that result-splice.ts can pass the backend's bytes on and write only
// the members the gateway owns. Pure. Answers undefined for anything else, which then takes the
// slow path (JSON.parse, and the result stamped and serialised):
//   - the text is one JSON object (JSON whitespace around it only) with members `jsonrpc`, `id`
//     and `result`, each at most once, and nothing else; `id` is written as JSON.stringify writes
//     the expected one;
//   - `result` is an object without duplicate keys, none of its keys written with an escape;
//   - nothing is nested deeper than json-scan.ts reads.
// The backend's text is bounded by maxReplyBytes before it gets here.
import type { JsonObject } from './jsonrpc.ts'
import { BACKSLASH, CLOSE_BRACE, COLON, COMMA, OPEN_BRACE, QUOTE, scanValue, skipSpace } from './json-scan.ts'

// The result's members the gateway reads or owns (result-splice.ts, RPC-6, META-5, CACHE-1).
export const OWNED_KEY = { resultType: 1, meta: 2, isError: 3, ttlMs: 4, cacheScope: 5 } as const
const OWNED_NAMES = ['', 'resultType', '_meta', 'isError', 'ttlMs', 'cacheScope']
// Up to this many keys, duplicates are found by comparing each pair in place.
const PAIRWISE_KEYS = 16

export class ResultScan {
  readonly text: string
  // Per member of the result, in text order: keyStart, keyEnd, valueEnd, owned key (0: none).
  readonly members: number[] = []
  // Per owned key: where its value starts and ends (index = OWNED_KEY value × 2), -1 when absent.
  readonly owned: number[] = [-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1]
  resultStart = -1
  resultEnd = -1
  // null: not read yet.
  #resultType: string | undefined | null = null

  constructor(text: string) {
    this.text = text
  }

  // The raw text of an owned member's value, or undefined.
  valueOf(key: number): string | undefined {
    const start = this.owned[key * 2]
    return start === -1 ? undefined : this.text.slice(start, this.owned[key * 2 + 1])
  }

  // The result's `resultType` when it is a string (read once: the router and the splice both ask).
  get resultType(): string | undefined {
    if (this.#resultType === null) this.#resultType = this.#readResultType()
    return this.#resultType
  }

  // `isError: true`: the tool ran and failed.
  get isError(): boolean {
    return this.valueOf(OWNED_KEY.isError) === 'true'
  }

  #readResultType(): string | undefined {
    const raw = this.valueOf(OWNED_KEY.resultType)
    if (raw === undefined || raw.charCodeAt(0) !== QUOTE) return undefined
    return raw.includes('\\') ? (JSON.parse(raw) as string) : raw.slice(1, -1)
  }

  // The result as an object, built only when something asks for it.
  parseResult(): JsonObject {
    return JSON.parse(this.text.slice(this.resultStart, this.resultEnd)) as JsonObject
  }
}

// A key (at its opening quote) written without escapes: the index after its closing quote, or -1.
function skipKey(text: string, at: number): number {
  for (let i = at + 1; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) return i + 1
    if (c === BACKSLASH || c < 0x20) return -1
  }
  return -1
}

function keyIs(text: string, keyStart: number, keyEnd: number, name: string): boolean {
  return keyEnd - keyStart === name.length + 2 && text.startsWith(name, keyStart + 1)
}

// Visits the members of the object at `at` ('{'): `member(keyStart, keyEnd, valueStart)` returns
// the index after the value, or -1 to stop. Returns the index after the '}', or -1.
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

function ownedKey(text: string, keyStart: number, keyEnd: number): number {
  for (let key = 1; key < OWNED_NAMES.length; key++) if (keyIs(text, keyStart, keyEnd, OWNED_NAMES[key])) return key
  return 0
}

// The result object's members noted in `scan`; the index after the object, or -1.
function scanResult(scan: ResultScan, at: number): number {
  const { text, members, owned } = scan
  scan.resultStart = at
  scan.resultEnd = eachMember(text, at, (keyStart, keyEnd, valueStart) => {
    const valueEnd = scanValue(text, valueStart, 1)
    const key = ownedKey(text, keyStart, keyEnd)
    members.push(keyStart, keyEnd, valueEnd, key)
    if (key !== 0) {
      owned[key * 2] = valueStart
      owned[key * 2 + 1] = valueEnd
    }
    return valueEnd
  })
  return scan.resultEnd
}

function sameKey(text: string, a: number, aEnd: number, b: number, bEnd: number): boolean {
  if (aEnd - a !== bEnd - b) return false
  for (let i = 1; i < aEnd - a - 1; i++) if (text.charCodeAt(a + i) !== text.charCodeAt(b + i)) return false
  return true
}

function hasDuplicateKey(text: string, members: number[]): boolean {
  if (members.length > PAIRWISE_KEYS * 4) {
    const seen = new Set<string>()
    for (let m = 0; m < members.length; m += 4) seen.add(text.slice(members[m], members[m + 1]))
    return seen.size !== members.length / 4
  }
  for (let m = 0; m < members.length; m += 4) {
    for (let n = m + 4; n < members.length; n += 4) if (sameKey(text, members[m], members[m + 1], members[n], members[n + 1])) return true
  }
  return false
}

const RESULT_BIT = 4

// The envelope's members, one bit each (each may come once); 0 for any other key.
function envelopeBit(text: string, keyStart: number, keyEnd: number): number {
  if (keyIs(text, keyStart, keyEnd, 'result')) return RESULT_BIT
  if (keyIs(text, keyStart, keyEnd, 'id')) return 2
  return keyIs(text, keyStart, keyEnd, 'jsonrpc') ? 1 : 0
}

// `idText`: the expected id as JSON.stringify writes it.
export function scanResponse(text: string, idText: string): ResultScan | undefined {
  const scan = new ResultScan(text)
  let seen = 0
  const end = eachMember(text, skipSpace(text, 0), (keyStart, keyEnd, valueStart) => {
    const bit = envelopeBit(text, keyStart, keyEnd)
    if (bit === 0 || (seen & bit) !== 0) return -1
    seen |= bit
    if (bit === RESULT_BIT) return scanResult(scan, valueStart)
    const valueEnd = scanValue(text, valueStart, 1)
    return bit === 2 && !(valueEnd - valueStart === idText.length && text.startsWith(idText, valueStart)) ? -1 : valueEnd
  })
  if (end === -1 || skipSpace(text, end) !== text.length || (seen & RESULT_BIT) === 0 || (seen & 2) === 0) return undefined
  return hasDuplicateKey(text, scan.members) ? undefined : scan
}
