// Strict JSON (RFC 8259) checked in place, without building the value: the backend's reply text
// is passed on as it is (result-scan.ts), so it must be exactly what JSON.parse would accept. Pure.
// Every function returns the index after what it read, or -1: not JSON, or nested deeper than
// MAX_DEPTH. -1 never means "refuse": the caller then takes the slow path (JSON.parse), which
// decides. JSON.parse's own extensions are none: no comments, no trailing commas, no NaN.
export const QUOTE = 0x22
export const BACKSLASH = 0x5c
export const OPEN_BRACE = 0x7b
export const CLOSE_BRACE = 0x7d
export const COMMA = 0x2c
export const COLON = 0x3a
const OPEN_BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d
const MINUS = 0x2d
const PLUS = 0x2b
const DOT = 0x2e
const ZERO = 0x30
const NINE = 0x39
const MAX_DEPTH = 64
// After a backslash: " \ / b f n r t (u is checked apart), as a table by character code.
const SIMPLE_ESCAPES = new Uint8Array(128)
for (const c of '"\\/bfnrt') SIMPLE_ESCAPES[c.charCodeAt(0)] = 1
// A run of string characters that need no check (not a quote, a backslash or a control character).
const PLAIN_RUN = /[^"\\\u0000-\u001f]*/y

// JSON whitespace only (String.prototype.trim also strips a BOM and other spaces JSON refuses).
export function skipSpace(text: string, at: number): number {
  let i = at
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break
  }
  return i
}

function isHex(c: number): boolean {
  return (c >= ZERO && c <= NINE) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66)
}

// `at` is past a backslash: the index after the escape, or -1.
function scanEscape(text: string, at: number): number {
  const c = text.charCodeAt(at)
  if (SIMPLE_ESCAPES[c] === 1) return at + 1
  if (c !== 0x75) return -1
  for (let i = at + 1; i < at + 5; i++) if (!isHex(text.charCodeAt(i))) return -1
  return at + 5
}

// `at` is an opening quote. Short runs of plain characters are read here; once a run reaches 32,
// the rest of it is skipped by a sticky regex.
export function scanString(text: string, at: number): number {
  let i = at + 1
  let plain = 0
  for (;;) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) return i + 1
    if (c === BACKSLASH) {
      i = scanEscape(text, i + 1)
      if (i === -1) return -1
      plain = 0 // short runs between escapes stay in this loop
    } else if (c >= 0x20) {
      if (++plain < 32) i++
      else i = skipPlainRun(text, i)
    } else return -1 // a control character, or the end of the text (NaN)
  }
}

function skipPlainRun(text: string, at: number): number {
  PLAIN_RUN.lastIndex = at
  PLAIN_RUN.test(text)
  return PLAIN_RUN.lastIndex
}

function skipDigits(text: string, at: number): number {
  let i = at
  for (let c = text.charCodeAt(i); c >= ZERO && c <= NINE; c = text.charCodeAt(++i));
  return i
}

// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
function scanNumber(text: string, at: number): number {
  let i = text.charCodeAt(at) === MINUS ? at + 1 : at
  const first = text.charCodeAt(i)
  if (first === ZERO) i++
  else if (first > ZERO && first <= NINE) i = skipDigits(text, i + 1)
  else return -1
  if (text.charCodeAt(i) === DOT) {
    const end = skipDigits(text, i + 1)
    if (end === i + 1) return -1
    i = end
  }
  const e = text.charCodeAt(i)
  if (e === 0x65 || e === 0x45) {
    const sign = text.charCodeAt(i + 1)
    const start = sign === PLUS || sign === MINUS ? i + 2 : i + 1
    const end = skipDigits(text, start)
    if (end === start) return -1
    i = end
  }
  return i
}

function scanWord(text: string, at: number, word: string): number {
  return text.startsWith(word, at) ? at + word.length : -1
}

// The members' values of an object (`{`) or the elements of an array (`[`), each after skipSpace.
function scanContainer(text: string, at: number, depth: number): number {
  if (depth >= MAX_DEPTH) return -1
  const isObject = text.charCodeAt(at) === OPEN_BRACE
  const close = isObject ? CLOSE_BRACE : CLOSE_BRACKET
  let i = skipSpace(text, at + 1)
  if (text.charCodeAt(i) === close) return i + 1
  for (;;) {
    if (isObject) {
      if (text.charCodeAt(i) !== QUOTE) return -1
      const keyEnd = scanString(text, i)
      if (keyEnd === -1) return -1
      i = skipSpace(text, keyEnd)
      if (text.charCodeAt(i) !== COLON) return -1
      i = skipSpace(text, i + 1)
    }
    i = scanValue(text, i, depth + 1)
    if (i === -1) return -1
    i = skipSpace(text, i)
    const c = text.charCodeAt(i)
    if (c === close) return i + 1
    if (c !== COMMA) return -1
    i = skipSpace(text, i + 1)
  }
}

// One JSON value starting exactly at `at` (no whitespace before it).
export function scanValue(text: string, at: number, depth = 0): number {
  const c = text.charCodeAt(at)
  if (c === QUOTE) return scanString(text, at)
  if (c === OPEN_BRACE || c === OPEN_BRACKET) return scanContainer(text, at, depth)
  if (c === 0x74) return scanWord(text, at, 'true')
  if (c === 0x66) return scanWord(text, at, 'false')
  if (c === 0x6e) return scanWord(text, at, 'null')
  return scanNumber(text, at)
}
