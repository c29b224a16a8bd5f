// The strict JSON check that lets a backend's reply pass on unparsed (issue 8): it must never
// accept what JSON.parse refuses, and must accept what JSON.parse accepts (up to its depth).
import t from 'tap'
import { scanValue, skipSpace } from '../../../src/protocol/json-scan.ts'

function scans(text: string): boolean {
  const start = skipSpace(text, 0)
  const end = scanValue(text, start)
  return end !== -1 && skipSpace(text, end) === text.length
}

function parses(text: string): boolean {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

// A test message on one line (TAP reads U+2028 as a line break).
const label = (text: string): string => JSON.stringify(text).replace(/[\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`)

const VALID = [
  '0', '-0', '1', '-1', '12.5', '1e3', '1E+3', '1e-3', '-0.0e0', '123456789012345678901234567890', '0.5',
  'true', 'false', 'null', '""', '"a"', '" "', '"\\"\\\\\\/\\b\\f\\n\\r\\t"', '"\\u0041\\u00e9\\uD83D\\uDE00"', '"\\ud800"',
  '"héllo ☃ 😀"', '"\u2028\u2029"', '"\u007f"', '[]', '[ ]', '{}', '{ }', ' \t\r\n[1, "a" ,{"b":[null]}] \n',
  '{"a":1,"a":2}', '{"":0}', '{"k\\u0065y":"v"}', '[[[[[[[[[[]]]]]]]]]]', `"${'x'.repeat(200)}\\n${'y'.repeat(100)}"`,
  `"${'a'.repeat(40)}"`, `"${'a'.repeat(31)}"`, `"${'a'.repeat(32)}"`, `"${'a'.repeat(33)}\\""`,
]

const INVALID = [
  '', ' ', '01', '-', '+1', '1.', '.5', '1e', '1e+', '0x10', 'NaN', 'Infinity', '-Infinity', '1 2', 'tru', 'nul', 'True',
  '"', '"abc', '"a\u0000b"', '"a\nb"', '"a\tb"', `"${'a'.repeat(40)}\u0001"`, `"${'a'.repeat(40)}`, '"\\x41"', '"\\u12"', '"\\u12G4"', '"\\\'"', '"\\',
  '[', ']', '[1,]', '[,1]', '[1 2]', '{', '{"a"}', '{"a":}', '{"a":1,}', '{,"a":1}', '{a:1}', "{'a':1}", '{"a" 1}', '{"a":1 "b":2}',
  '[1]]', '{}}', '// c\n1', '/* c */1', '\ufeff1', '1\u00a0', '[1]\u0000', 'undefined', '"\\u{41}"',
]

t.test('valid JSON: scanned to its end, as JSON.parse reads it', async (t) => {
  for (const text of VALID) {
    t.ok(parses(text), `JSON.parse accepts ${label(text)}`)
    t.ok(scans(text), `scanned: ${label(text)}`)
  }
})

t.test('not JSON: never scanned', async (t) => {
  for (const text of INVALID) {
    t.notOk(parses(text), `JSON.parse refuses ${label(text)}`)
    t.notOk(scans(text), `refused: ${label(text)}`)
  }
})

t.test('nested deeper than the scan reads: -1 (the slow path), never a stack overflow', async (t) => {
  t.notOk(scans(`${'['.repeat(100)}${']'.repeat(100)}`), '100 levels → not scanned')
  t.notOk(scans(`${'['.repeat(200_000)}`), '200,000 open brackets → not scanned')
  t.ok(scans(`${'['.repeat(60)}${']'.repeat(60)}`), '60 levels → scanned')
})

// Every one-character change of valid texts: the scan agrees with JSON.parse, or refuses (never
// accepts what JSON.parse refuses).
t.test('mutations: the scan never accepts what JSON.parse refuses', async (t) => {
  // The third has a string long enough for the scanner's skip of plain runs (past 32 characters).
  const seeds = ['{"jsonrpc":"2.0","id":"gw-1","result":{"content":[{"type":"text","text":"a\\"b\\u00e9"}],"n":-1.5e3,"t":true,"z":null}}', '[0,{"a":[1.25,false]}]', `["${'abcdefghij'.repeat(4)}\\n${'xyz'.repeat(4)}\\"é"]`]
  const alphabet = ['', ' ', '"', '\\', '{', '}', '[', ']', ',', ':', '0', '1', '-', '.', 'e', '+', 'u', 'a', 'n', 't', '\u0001', '\n']
  let checked = 0
  let disagreed = 0
  for (const seed of seeds) {
    for (let at = 0; at <= seed.length; at++) {
      for (const c of alphabet) {
        for (const text of [seed.slice(0, at) + c + seed.slice(at + 1), seed.slice(0, at) + c + seed.slice(at)]) {
          checked++
          if (scans(text) !== parses(text)) disagreed++
        }
      }
    }
  }
  t.equal(disagreed, 0, `${checked} mutated texts: the scan and JSON.parse agree on each`)
})
