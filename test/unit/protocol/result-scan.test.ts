// A backend's reply read without JSON.parse (issue 8): only a strict-JSON result envelope for the
// expected id is scanned; anything else answers undefined (the slow path parses it).
import t from 'tap'
import { OWNED_KEY, scanResponse } from '../../../src/protocol/result-scan.ts'

const ID = '"gw-1"'
const envelope = (result: string, id = ID): string => `{"jsonrpc":"2.0","id":${id},"result":${result}}`

t.test('a result envelope: scanned, the result readable as JSON.parse reads it', async (t) => {
  const texts = [
    envelope('{"content":[{"type":"text","text":"hi"}],"isError":false}'),
    ` \n{ "result" : { "a" : [1, {"b":"}"}] } , "id" : ${ID} }\r\n`,
    envelope('{}'),
    envelope('{"resultType":"complete","_meta":{"x":1},"ttlMs":5,"cacheScope":"public"}'),
  ]
  for (const text of texts) {
    const scan = scanResponse(text, ID)
    t.ok(scan, `scanned: ${text}`)
    t.strictSame(scan?.parseResult(), (JSON.parse(text) as { result: unknown }).result, 'the result as JSON.parse reads it')
  }
})

t.test('owned members read from the text', async (t) => {
  const scan = scanResponse(envelope('{"resultType":"complete","_meta":{"x":[1]},"isError":true,"ttlMs":1.5,"cacheScope":"public","k":0}'), ID)
  t.equal(scan?.resultType, 'complete')
  t.equal(scan?.isError, true)
  t.equal(scan?.valueOf(OWNED_KEY.meta), '{"x":[1]}')
  t.equal(scan?.valueOf(OWNED_KEY.ttlMs), '1.5')
  t.equal(scan?.valueOf(OWNED_KEY.cacheScope), '"public"')
  t.equal(scanResponse(envelope('{"resultType":"input_r\\u0065quired"}'), ID)?.resultType, 'input_required', 'an escaped resultType is decoded')
  t.equal(scanResponse(envelope('{"resultType":7}'), ID)?.resultType, undefined, 'a resultType that is not a string: none')
  t.equal(scanResponse(envelope('{"isError":"true"}'), ID)?.isError, false, 'isError only when it is true')
  t.equal(scanResponse(envelope('{"a":{"isError":true}}'), ID)?.isError, false, 'a nested isError is not the result\'s')
})

t.test('the id must be the expected one, written as JSON.stringify writes it', async (t) => {
  t.ok(scanResponse(envelope('{}', '7'), '7'), 'numeric id')
  t.notOk(scanResponse(envelope('{}', '"gw-2"'), ID), 'another id')
  t.notOk(scanResponse(envelope('{}', '"gw-\\u0031"'), ID), 'the same id written with an escape (the slow path decides)')
  t.notOk(scanResponse(envelope('{}', '7.0'), '7'), '7.0 for 7 (the slow path decides)')
  t.notOk(scanResponse('{"jsonrpc":"2.0","result":{}}', ID), 'no id')
})

t.test('anything else: undefined', async (t) => {
  const cases: Array<[string, string]> = [
    ['an error', `{"jsonrpc":"2.0","id":${ID},"error":{"code":1,"message":"m"}}`],
    ['a value in the result that is not JSON', envelope('{"n":01}')],
    ['a control character in a string', envelope('{"s":"a\u0001"}')],
    ['a trailing comma', envelope('{"a":[1,]}')],
    ['a bad jsonrpc value', `{"jsonrpc":2.0.1,"id":${ID},"result":{}}`],
    ['a duplicate key in the result', envelope('{"a":1,"b":2,"a":3}')],
    ['a duplicate owned key', envelope('{"resultType":"complete","resultType":"input_required"}')],
    ['an escaped key in the result', envelope('{"_m\\u0065ta":{}}')],
    ['an unknown envelope member', `{"jsonrpc":"2.0","id":${ID},"result":{},"x":1}`],
    ['text after the object', `${envelope('{}')} x`],
    ['nested too deep', envelope(`{"d":${'['.repeat(80)}${']'.repeat(80)}}`)],
  ]
  for (const [name, text] of cases) t.equal(scanResponse(text, ID), undefined, name)
})

t.test('duplicates among many keys (past the pairwise check)', async (t) => {
  const keys = Array.from({ length: 40 }, (_, i) => `"k${i}":${i}`)
  t.ok(scanResponse(envelope(`{${keys.join(',')}}`), ID), '40 distinct keys')
  t.notOk(scanResponse(envelope(`{${keys.join(',')},"k7":0}`), ID), '40 keys and a repeat')
})
