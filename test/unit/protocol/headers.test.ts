// Mirrored request headers (HDR-3..6, VER-1): encoding, decoding with the Base64 sentinel, matching.
import t from 'tap'
import type { IncomingHttpHeaders } from 'node:http'
import {
  HEADER,
  checkMirroredHeader,
  checkStandardHeaders,
  decodeHeaderValue,
  encodeHeaderValue,
  getParamHeaders,
  headerMatchesValue,
  type MirroredRequest,
} from '../../../src/protocol/headers.ts'
import { getMethodSpec } from '../../../src/protocol/methods.ts'

const b64 = (text: string): string => `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`

t.test('encodeHeaderValue', async (t) => {
  const cases: Array<[string | number | boolean, string]> = [
    ['echo', 'echo'],
    ['a__echo', 'a__echo'],
    ['inner space', 'inner space'],
    ['fixture://alpha/items/7?x=1', 'fixture://alpha/items/7?x=1'],
    [42, '42'],
    [-7, '-7'],
    [true, 'true'],
    [false, 'false'],
    [' leading', b64(' leading')],
    ['trailing ', b64('trailing ')],
    ['tab\there', b64('tab\there')],
    ['line\nbreak', b64('line\nbreak')],
    ['écho', b64('écho')],
    ['日本', b64('日本')],
    ['=?base64?ZWNobw==?=', b64('=?base64?ZWNobw==?=')],
    ['', b64('')],
  ]
  for (const [input, expected] of cases) {
    t.equal(encodeHeaderValue(input), expected, `${JSON.stringify(input)} → ${JSON.stringify(expected)}`)
  }
})

t.test('decodeHeaderValue', async (t) => {
  const cases: Array<[string, string | undefined]> = [
    ['echo', 'echo'],
    ['inner space', 'inner space'],
    ['=?base64?ZWNobw==?=', 'echo'],
    [b64('écho'), 'écho'],
    [b64(' padded '), ' padded '],
    [b64(''), ''],
    ['=?base64?!!!?=', undefined],
    ['=?base64?abc?=', undefined],
    ['=?base64?ZWNobw=?=', undefined],
    ['=?base64?ZW Nobw==?=', undefined],
    ['=?base64?/w==?=', undefined],
    ['=?base64?77u/ZWNobw==?=', '\uFEFFecho'],
    ['=?BASE64?ZWNobw==?=', '=?BASE64?ZWNobw==?='],
    ['=?base64?ZWNobw==', '=?base64?ZWNobw=='],
    [' leading', undefined],
    ['trailing ', undefined],
    ['tab\there', undefined],
    ['latin1 é', undefined],
    ['', undefined],
  ]
  for (const [input, expected] of cases) {
    t.equal(decodeHeaderValue(input), expected, `${JSON.stringify(input)} → ${expected === undefined ? 'undefined (rejected)' : JSON.stringify(expected)}`)
  }
})

t.test('encode then decode → the original value, for any string', async (t) => {
  for (const value of ['echo', ' x ', 'é', '=?base64?x?=', 'a\r\nb', '\u0000', '🙂 emoji']) {
    t.equal(decodeHeaderValue(encodeHeaderValue(value)), value, `${JSON.stringify(value)} → round trip`)
  }
})

t.test('headerMatchesValue', async (t) => {
  const cases: Array<[string, unknown, boolean]> = [
    ['echo', 'echo', true],
    ['Echo', 'echo', false],
    ['42', '42', true],
    ['42', '042', false],
    ['42', 42, true],
    ['042', 42, true],
    ['4.0', 4, true],
    ['', 0, false],
    [' ', 0, false],
    ['x', 0, false],
    ['true', true, true],
    ['True', true, false],
    ['false', false, true],
    ['1', true, false],
    ['echo', undefined, false],
    ['null', null, false],
    ['[object Object]', {}, false],
  ]
  for (const [decoded, value, expected] of cases) {
    t.equal(headerMatchesValue(decoded, value), expected, `${JSON.stringify(decoded)} vs ${JSON.stringify(value)} → ${expected ? 'match' : 'no match'}`)
  }
})

function request(method: string, params: Record<string, unknown> | undefined, version = '2026-07-28'): MirroredRequest {
  return { method, params, version, spec: getMethodSpec(method) }
}

function headers(extra: IncomingHttpHeaders = {}): IncomingHttpHeaders {
  return { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'echo', ...extra }
}

t.test('checkStandardHeaders', async (t) => {
  const call = request('tools/call', { name: 'echo' })
  const cases: Array<[string, IncomingHttpHeaders, MirroredRequest, RegExp | undefined]> = [
    ['all three present and equal', headers(), call, undefined],
    ['Mcp-Name as a matching Base64 sentinel', headers({ 'mcp-name': b64('echo') }), call, undefined],
    ['no MCP-Protocol-Version', headers({ 'mcp-protocol-version': undefined }), call, /missing mcp-protocol-version/],
    ['MCP-Protocol-Version ≠ _meta version', headers({ 'mcp-protocol-version': '2025-11-25' }), call, /mcp-protocol-version header does not match/],
    ['no Mcp-Method', headers({ 'mcp-method': undefined }), call, /missing mcp-method/],
    ['Mcp-Method ≠ body method', headers({ 'mcp-method': 'tools/list' }), call, /mcp-method header does not match/],
    ['Mcp-Method differs in case', headers({ 'mcp-method': 'TOOLS/CALL' }), call, /mcp-method header does not match/],
    ['no Mcp-Name on tools/call', headers({ 'mcp-name': undefined }), call, /missing mcp-name/],
    ['Mcp-Name ≠ params.name', headers({ 'mcp-name': 'add' }), call, /mcp-name header does not match/],
    ['Mcp-Name undecodable sentinel', headers({ 'mcp-name': '=?base64?***?=' }), call, /invalid characters/],
    ['tools/list needs no Mcp-Name', headers({ 'mcp-method': 'tools/list', 'mcp-name': undefined }), request('tools/list', {}), undefined],
    ['prompts/get mirrors params.name', headers({ 'mcp-method': 'prompts/get', 'mcp-name': 'greet' }), request('prompts/get', { name: 'greet' }), undefined],
    ['resources/read mirrors params.uri', headers({ 'mcp-method': 'resources/read', 'mcp-name': 'file:///a' }), request('resources/read', { uri: 'file:///a' }), undefined],
    ['resources/read with Mcp-Name = a name, not the uri', headers({ 'mcp-method': 'resources/read', 'mcp-name': 'a' }), request('resources/read', { uri: 'file:///a' }), /does not match/],
    ['MCP-Protocol-Version sent twice', headers({ 'mcp-protocol-version': ['2026-07-28', '2026-07-28'] as unknown as string }), call, /mcp-protocol-version header does not match/],
    ['Mcp-Name sent twice', headers({ 'mcp-name': ['echo', 'echo'] as unknown as string }), call, /mcp-name header does not match/],
    ['unknown method: only version and method checked', headers({ 'mcp-method': 'x/y', 'mcp-name': undefined }), request('x/y', {}), undefined],
  ]
  for (const [name, given, req, expected] of cases) {
    const clean = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined))
    const problem = checkStandardHeaders(clean, req)
    if (expected === undefined) t.equal(problem, undefined, `${name} → accepted`)
    else t.match(problem, expected, `${name} → ${expected.source}`)
  }
})

t.test('checkMirroredHeader: an integer argument mirrored in a Mcp-Param header', async (t) => {
  t.equal(checkMirroredHeader({ 'mcp-param-count': '7' }, 'mcp-param-count', 7), undefined, '"7" vs 7 → match')
  t.match(checkMirroredHeader({}, 'mcp-param-count', 7), /missing/, 'absent → missing')
  t.match(checkMirroredHeader({ 'mcp-param-count': '8' }, 'mcp-param-count', 7), /does not match/, '"8" vs 7 → mismatch')
})

t.test('getParamHeaders', async (t) => {
  const cases: Array<[IncomingHttpHeaders, Array<[string, string]>]> = [
    [{}, []],
    [{ 'mcp-method': 'tools/call', 'mcp-name': 'x' }, []],
    [{ 'mcp-param-region': 'eu' }, [['region', 'eu']]],
    [{ 'mcp-param-a': 'x', 'mcp-param-b': b64('é'), accept: '*/*' }, [['a', 'x'], ['b', b64('é')]]],
    [{ 'set-cookie': ['a'], 'mcp-param-list': ['1', '2'] as unknown as string }, [['list', '1, 2']]],
  ]
  for (const [input, expected] of cases) {
    t.same([...getParamHeaders(input)], expected, `${JSON.stringify(input)} → ${JSON.stringify(expected)}`)
  }
})

t.test('HEADER names are lower-case (Node lower-cases incoming header names)', async (t) => {
  for (const value of Object.values(HEADER)) t.equal(value, value.toLowerCase(), `${value} → lower-case`)
})
