// Result stamping by splicing (RPC-6, META-5, CACHE-1): the spliced text must mean exactly what the
// slow path (stampResult + stampCacheHints) would have written, keep the backend's bytes of
// everything else, and anything unusual must answer undefined (the slow path). The text is read by
// result-scan.ts (its own checks: result-scan.test.ts).
import t from 'tap'
import { ResultSplicer, resultMessageText } from '../../../src/protocol/result-splice.ts'
import { scanResponse } from '../../../src/protocol/result-scan.ts'
import { stampCacheHints, stampResult } from '../../../src/protocol/result.ts'

const SERVER_INFO = { name: 'mcp-gateway', version: '0.1.0' }
const OPTIONS = { cacheable: false }
const CACHEABLE = { cacheable: true }
const splicer = new ResultSplicer(SERVER_INFO)
// The id the reply is expected to answer: the envelope's own where the text parses.
const ID_TEXT = /"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?[\d.eE+-]+)/
function expectedId(text: string): string {
  try {
    return JSON.stringify((JSON.parse(text) as { id?: unknown }).id ?? null)
  } catch {
    return ID_TEXT.exec(text)?.[1] ?? 'null'
  }
}
const spliceResult = (text: string, _result: Record<string, unknown>, options: { cacheable: boolean }): string | undefined => {
  const scan = scanResponse(text, expectedId(text))
  return scan === undefined ? undefined : splicer.splice(scan, options.cacheable)
}

type Result = Record<string, unknown>

function parsedResult(text: string): Result {
  const parsed = JSON.parse(text) as { result?: unknown }
  return (parsed !== null && typeof parsed.result === 'object' ? parsed.result : {}) as Result
}

function slowPath(result: Result, cacheable: boolean): Result {
  const stamped = stampResult(result, SERVER_INFO)
  return cacheable ? stampCacheHints(stamped) : stamped
}

t.test('spliced: the same meaning as the slow path, the backend\'s bytes kept', async (t) => {
  // [name, reply text, a piece of the backend's text that must come through byte for byte]
  const cases: Array<[string, string, string]> = [
    ['plain', '{"jsonrpc":"2.0","id":"gw-1","result":{"content":[{"type":"text","text":"hi"}]}}', '"content":[{"type":"text","text":"hi"}]'],
    ['odd whitespace everywhere', '\n\t {  "result" :\r\n { "content" : [ 1 , 2 ] , "x" :\t1 } , "id" : "gw-1" , "jsonrpc":"2.0" }  \r\n', '"content" : [ 1 , 2 ]'],
    ['unicode raw and escaped', '{"jsonrpc":"2.0","id":"gw-2","result":{"text":"héllo ☃ 😀 \\u2028 \\ud83d\\ude00 \\"q\\" \\\\"}}', '"text":"héllo ☃ 😀 \\u2028 \\ud83d\\ude00 \\"q\\" \\\\"'],
    ['braces and brackets inside strings', '{"jsonrpc":"2.0","id":1,"result":{"a":"}{][,:","b":"\\\\","c":["]"]}}', '"a":"}{][,:","b":"\\\\","c":["]"]'],
    ['numeric id', '{"jsonrpc":"2.0","id":7,"result":{"n":-1.5e3}}', '"n":-1.5e3'],
    ['id 0 and result first', '{"result":{"t":true,"f":false,"z":null},"id":0,"jsonrpc":"2.0"}', '"t":true,"f":false,"z":null'],
    ['nested id and result keys inside the result', '{"jsonrpc":"2.0","id":"gw-3","result":{"id":5,"result":{"id":"x","result":[{"result":1}]},"jsonrpc":"1"}}', '"result":{"id":"x","result":[{"result":1}]}'],
    ['empty result', '{"jsonrpc":"2.0","id":"gw-4","result":{}}', ''],
    ['empty result with whitespace', '{"jsonrpc":"2.0","id":"gw-4","result":{ \n }}', ''],
    ['resultType complete kept', '{"jsonrpc":"2.0","id":"a","result":{"resultType":"complete","k":[]}}', '"k":[]'],
    ['resultType not a string replaced', '{"jsonrpc":"2.0","id":"a","result":{"resultType":5,"k":{}}}', '"k":{}'],
    ['backend serverInfo replaced, other _meta kept', '{"jsonrpc":"2.0","id":"a","result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"b","version":"1"},"x.y/z":[1]},"k":1}}', '"k":1'],
    ['_meta not an object replaced', '{"jsonrpc":"2.0","id":"a","result":{"_meta":"no","k":1}}', '"k":1'],
    ['deep nesting', '{"jsonrpc":"2.0","id":"a","result":{"d":[[[{"e":[{"f":"}"}]}]]]}}', '"d":[[[{"e":[{"f":"}"}]}]]]'],
  ]
  for (const [name, text, kept] of cases) {
    for (const options of [OPTIONS, CACHEABLE]) {
      const result = parsedResult(text)
      const spliced = spliceResult(text, result, options)
      const label = `${name}${options.cacheable ? ' (cacheable)' : ''}`
      if (spliced === undefined) {
        t.fail(`${label}: took the slow path`)
        continue
      }
      t.strictSame(JSON.parse(spliced), slowPath(result, options.cacheable), `${label}: same as the slow path`)
      t.ok(spliced.includes(kept), `${label}: backend bytes kept`)
    }
  }
})

t.test('spliced cache hints (CACHE-1, CACHE-3, CACHE-4, CACHE-12)', async (t) => {
  const cases: Array<[string, Result]> = [
    ['{"jsonrpc":"2.0","id":1,"result":{"ttlMs":1.9,"cacheScope":"public"}}', { ttlMs: 1, cacheScope: 'public' }],
    ['{"jsonrpc":"2.0","id":1,"result":{"ttlMs":-3,"cacheScope":"PUBLIC"}}', { ttlMs: 0, cacheScope: 'private' }],
    ['{"jsonrpc":"2.0","id":1,"result":{"x":1}}', { ttlMs: 0, cacheScope: 'private' }],
  ]
  for (const [text, hints] of cases) {
    const spliced = spliceResult(text, parsedResult(text), CACHEABLE)
    t.match(JSON.parse(spliced ?? 'null'), hints, `${text} → ${JSON.stringify(hints)}`)
    t.equal(spliced?.match(/"ttlMs"/g)?.length, 1, 'one ttlMs member')
  }
  t.notOk(spliceResult(cases[2][0], { x: 1 }, OPTIONS)?.includes('ttlMs'), 'not cacheable: no hints added')
})

t.test('anything unusual takes the slow path', async (t) => {
  const cases: Array<[string, string, Result?]> = [
    ['result is an array', '{"jsonrpc":"2.0","id":1,"result":[1]}', {}],
    ['result is a string', '{"jsonrpc":"2.0","id":1,"result":"x"}', {}],
    ['result is null', '{"jsonrpc":"2.0","id":1,"result":null}', {}],
    ['no result', '{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"}}', {}],
    ['an error beside the result', '{"jsonrpc":"2.0","id":1,"result":{},"error":null}'],
    ['an unknown top-level member', '{"jsonrpc":"2.0","id":1,"result":{},"extra":1}'],
    ['a second id', '{"jsonrpc":"2.0","id":1,"id":2,"result":{}}'],
    ['a second result', '{"jsonrpc":"2.0","id":1,"result":{"a":1},"result":{"b":2}}'],
    ['a duplicate key inside the result', '{"jsonrpc":"2.0","id":1,"result":{"a":1,"a":2}}'],
    ['an escaped top-level key', '{"jsonrpc":"2.0","id":1,"res\\u0075lt":{}}', {}],
    ['an escaped key inside the result', '{"jsonrpc":"2.0","id":1,"result":{"_m\\u0065ta":{}}}'],
    ['input_required', '{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{}}}'],
    ['a byte-order mark first', '\ufeff{"jsonrpc":"2.0","id":1,"result":{}}', {}],
    ['a non-breaking space after', '{"jsonrpc":"2.0","id":1,"result":{}}\u00a0', {}],
    ['two objects', '{"jsonrpc":"2.0","id":1,"result":{}}{"jsonrpc":"2.0","id":1,"result":{}}', {}],
    ['a batch', '[{"jsonrpc":"2.0","id":1,"result":{}}]', {}],
    ['not an object at all', '"result"', {}],
  ]
  for (const [name, text, parsed] of cases) t.equal(spliceResult(text, parsed ?? parsedResult(text), OPTIONS), undefined, name)
})

t.test('truncated JSON → slow path, wherever it is cut', async (t) => {
  const text = '{"jsonrpc":"2.0","id":"gw-9","result":{"content":[{"type":"text","text":"a \\"}\\" b"}],"n":12,"o":{"p":[true,null]}}}'
  const result = parsedResult(text)
  t.ok(spliceResult(text, result, OPTIONS), 'the whole text splices')
  let spliced = 0
  for (let cut = 0; cut < text.length; cut++) if (spliceResult(text.slice(0, cut), result, OPTIONS) !== undefined) spliced++
  t.equal(spliced, 0, `none of the ${text.length} prefixes splices`)
})

t.test('resultMessageText: the client\'s id, of every type', async (t) => {
  const ids: Array<string | number> = ['abc', '', 'quote " and \\ and \u2028', 'ünï ☃ 😀', 0, 42, -7, 1.5, Number.MAX_SAFE_INTEGER]
  for (const id of ids) {
    const text = resultMessageText(id, '{"content":[]}')
    t.strictSame(JSON.parse(text), { jsonrpc: '2.0', id, result: { content: [] } }, `id of type ${typeof id}: ${encodeURI(String(id))}`)
  }
})
