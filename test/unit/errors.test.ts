// THE error catalogue: every code has a spec-legal JSON-RPC code and an HTTP status, and the README
// error table documents exactly these codes with the same numbers and messages.
import { readFileSync } from 'node:fs'
import t from 'tap'
import {
  BACKEND_ERROR_REWRITES, BACKEND_ERROR_STATUS, ERRORS, GatewayError, IN_BAND_HTTP_STATUS, isUndefinedMcpCode, ORIGIN_KEY, RPC, UPSTREAM_FAILURE_CODES, statusFor, type ErrorCode,
} from '../../src/errors.ts'
import { BACKEND_FAILURE, type BackendFailure } from '../../src/upstream/backend.ts'

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
const CODES = Object.keys(ERRORS) as ErrorCode[]

// README rows: | `CODE` | -32600 | 403 | message |
function readmeRows(): Map<string, { rpc: number; http: number; message: string }> {
  const rows = new Map<string, { rpc: number; http: number; message: string }>()
  for (const match of README.matchAll(/^\|\s*`(MCP_GATEWAY_[A-Z_]+)`\s*\|\s*(-?\d+)\s*\|\s*(\d+)\s*\|\s*(.*?)\s*\|\s*$/gm)) {
    rows.set(match[1], { rpc: Number(match[2]), http: Number(match[3]), message: match[4] })
  }
  return rows
}

t.test('every catalogue entry → a legal JSON-RPC code and HTTP status', async (t) => {
  const legal = new Set<number>(Object.values(RPC))
  for (const code of CODES) {
    const entry = ERRORS[code]
    t.ok(legal.has(entry.rpcCode), `${code} → ${entry.rpcCode} is a defined code`)
    t.ok(!(entry.rpcCode >= -32019 && entry.rpcCode <= -32000), `${code} → not in the legacy -32000..-32019 range (ERR-4)`)
    t.ok(![-32002, -32042].includes(entry.rpcCode), `${code} → never -32002 / -32042 (ERR-5)`)
    t.ok(entry.httpStatus === 200 || (entry.httpStatus >= 400 && entry.httpStatus < 600), `${code} → HTTP ${entry.httpStatus}`)
    t.match(code, /^MCP_GATEWAY_(HTTP|RPC|META|HEADER|VERSION|METHOD|LOG|TOOL|PROMPT|RESOURCE|PARAMS|CURSOR|STATE|UPSTREAM|LIMIT|INTERNAL|AUTH|RATE|SESSION|CLIENT|SERVER|ADMIN|CONFIG|REPLICA)(_[A-Z]+)*$/, `${code} → MCP_GATEWAY_<AREA>_<WHAT>`)
  }
})

t.test('codes whose status the spec fixes (§24)', async (t) => {
  const cases: Array<[ErrorCode, number, number]> = [
    ['MCP_GATEWAY_HTTP_ORIGIN_FORBIDDEN', -32600, 403],
    ['MCP_GATEWAY_HTTP_METHOD_NOT_ALLOWED', -32600, 405],
    ['MCP_GATEWAY_RPC_PARSE_ERROR', -32700, 400],
    ['MCP_GATEWAY_RPC_INVALID_REQUEST', -32600, 400],
    ['MCP_GATEWAY_META_MISSING', -32602, 400],
    ['MCP_GATEWAY_HEADER_MISMATCH', -32020, 400],
    ['MCP_GATEWAY_VERSION_UNSUPPORTED', -32022, 400],
    ['MCP_GATEWAY_METHOD_NOT_FOUND', -32601, 404],
    ['MCP_GATEWAY_TOOL_UNKNOWN', -32602, 200],
    ['MCP_GATEWAY_RESOURCE_UNKNOWN', -32602, 200],
    ['MCP_GATEWAY_CURSOR_INVALID', -32602, 200],
    ['MCP_GATEWAY_UPSTREAM_UNAVAILABLE', -32603, 200],
    ['MCP_GATEWAY_UPSTREAM_TIMEOUT', -32603, 200],
  ]
  for (const [code, rpc, http] of cases) t.match(ERRORS[code], { rpcCode: rpc, httpStatus: http }, `${code} → ${rpc} / HTTP ${http}`)
})

t.test('README error table ↔ catalogue', async (t) => {
  const rows = readmeRows()
  for (const code of CODES) {
    const row = rows.get(code)
    const entry = ERRORS[code]
    t.same(row, { rpc: entry.rpcCode, http: entry.httpStatus, message: entry.message }, `${code} → documented with ${entry.rpcCode} / ${entry.httpStatus} / "${entry.message}"`)
  }
  for (const code of rows.keys()) t.ok(code in ERRORS, `README row ${code} → exists in the catalogue`)
})

t.test('README documents the upstream-failure data shape with the catalogue\'s origin key', async (t) => {
  t.ok(README.includes(ORIGIN_KEY), `README → mentions ${ORIGIN_KEY}`)
})

t.test('GatewayError', async (t) => {
  const cases: Array<[string, GatewayError, { message: string; code: number; status: number; json: object }]> = [
    ['code only', new GatewayError('MCP_GATEWAY_METHOD_NOT_FOUND'),
      { message: 'Method not found', code: -32601, status: 404, json: { code: -32601, message: 'Method not found' } }],
    ['code and detail', new GatewayError('MCP_GATEWAY_TOOL_UNKNOWN', 'a__x'),
      { message: 'Unknown tool: a__x', code: -32602, status: 200, json: { code: -32602, message: 'Unknown tool: a__x' } }],
    ['empty detail', new GatewayError('MCP_GATEWAY_TOOL_UNKNOWN', ''),
      { message: 'Unknown tool', code: -32602, status: 200, json: { code: -32602, message: 'Unknown tool' } }],
    ['with data', new GatewayError('MCP_GATEWAY_VERSION_UNSUPPORTED', 'x', { data: { supported: ['2026-07-28'], requested: 'x' } }),
      { message: 'Unsupported protocol version: x', code: -32022, status: 400,
        json: { code: -32022, message: 'Unsupported protocol version: x', data: { supported: ['2026-07-28'], requested: 'x' } } }],
  ]
  for (const [name, err, expected] of cases) {
    t.equal(err.message, expected.message, `${name} → message "${expected.message}"`)
    t.equal(err.rpcCode, expected.code, `${name} → rpcCode ${expected.code}`)
    t.equal(err.httpStatus, expected.status, `${name} → httpStatus ${expected.status}`)
    t.same(err.toJsonRpcError(), expected.json, `${name} → ${JSON.stringify(expected.json)}`)
    t.equal(err.name, 'GatewayError', `${name} → name GatewayError`)
    t.type(err, Error, `${name} → an Error`)
  }
  const cause = new Error('socket hang up')
  t.equal(new GatewayError('MCP_GATEWAY_INTERNAL', undefined, { cause }).cause, cause, 'cause → kept on the chain')
  t.notOk('data' in new GatewayError('MCP_GATEWAY_INTERNAL').toJsonRpcError(), 'no data → no data member')
})

t.test('UPSTREAM_FAILURE_CODES: BackendError reason → gateway-origin -32603 code (ERR-7, E24)', async (t) => {
  const cases: Array<[BackendFailure, ErrorCode]> = [
    ['unreachable', 'MCP_GATEWAY_UPSTREAM_UNAVAILABLE'],
    ['timeout', 'MCP_GATEWAY_UPSTREAM_TIMEOUT'],
    ['bad_reply', 'MCP_GATEWAY_UPSTREAM_BAD_REPLY'],
    ['closed', 'MCP_GATEWAY_UPSTREAM_CLOSED'],
    ['aborted', 'MCP_GATEWAY_UPSTREAM_CLOSED'],
  ]
  for (const [reason, code] of cases) {
    t.equal(UPSTREAM_FAILURE_CODES[reason], code, `${reason} → ${code}`)
    t.match(ERRORS[code], { rpcCode: RPC.internalError, httpStatus: IN_BAND_HTTP_STATUS }, `${reason} → -32603, in band`)
  }
  t.same(Object.keys(UPSTREAM_FAILURE_CODES).sort(), Object.values(BACKEND_FAILURE).sort(), 'every BackendError reason → mapped')
})

t.test('BACKEND_ERROR_STATUS: a backend\'s JSON-RPC error code → HTTP status before a response starts (G11)', async (t) => {
  const cases: Array<[string, number, number]> = [
    ['-32020 header mismatch (ERR-2)', RPC.headerMismatch, 400],
    ['-32021 missing client capability (E15)', RPC.missingClientCapability, 400],
    ['-32601 method not found (ERR-8)', RPC.methodNotFound, 404],
    ['-32602 invalid params', RPC.invalidParams, IN_BAND_HTTP_STATUS],
    ['-32603 internal error', RPC.internalError, IN_BAND_HTTP_STATUS],
    ['-32000 server-defined', -32_000, IN_BAND_HTTP_STATUS],
  ]
  for (const [name, code, status] of cases) t.equal(BACKEND_ERROR_STATUS.get(code) ?? IN_BAND_HTTP_STATUS, status, `${name} → HTTP ${status}`)
})

t.test('isUndefinedMcpCode: -32020…-32099 except the three 2026-07-28 defines (ERR-3)', async (t) => {
  const cases: Array<[number, boolean]> = [
    [-32019, false], [-32020, false], [-32021, false], [-32022, false], [-32023, true], [-32042, true], [-32099, true], [-32100, false], [-32603, false], [-32002, false],
  ]
  for (const [code, undefinedCode] of cases) t.equal(isUndefinedMcpCode(code), undefinedCode, `${code} → ${undefinedCode ? 'undefined' : 'kept'}`)
})

t.test('BACKEND_ERROR_REWRITES: codes a modern client never sees → their replacement (ERR-5)', async (t) => {
  const cases: Array<[string, number, { rpcCode: number; dataParam: string } | undefined]> = [
    ['-32002 legacy resource not found', RPC.legacyResourceNotFound, { rpcCode: RPC.invalidParams, dataParam: 'uri' }],
    ['-32602 invalid params', RPC.invalidParams, undefined],
    ['-32601 method not found', RPC.methodNotFound, undefined],
  ]
  for (const [name, code, rewrite] of cases) t.same(BACKEND_ERROR_REWRITES.get(code), rewrite, `${name} → ${rewrite ? `${rewrite.rpcCode} with data.${rewrite.dataParam}` : 'unchanged'}`)
  for (const { rpcCode } of BACKEND_ERROR_REWRITES.values()) t.notOk(BACKEND_ERROR_REWRITES.has(rpcCode), `${rpcCode} → not itself rewritten`)
})

// HTTP-16: the one rule for an error's HTTP status, used by every writer of an MCP answer.
t.test('statusFor → the catalogue status until the response is committed, then 200 (in band)', async (t) => {
  const rows: Array<[string, { httpStatus: number }, boolean, number]> = [
    ['internal error, nothing sent', new GatewayError('MCP_GATEWAY_INTERNAL'), false, 500],
    ['internal error, SSE started', new GatewayError('MCP_GATEWAY_INTERNAL'), true, 200],
    ['header mismatch, nothing sent', new GatewayError('MCP_GATEWAY_HEADER_MISMATCH'), false, 400],
    ['unknown tool (200 anyway), SSE started', new GatewayError('MCP_GATEWAY_TOOL_UNKNOWN'), true, 200],
    ['a backend reply with its own status (RouteReply), nothing sent', { httpStatus: 404 }, false, 404],
    ['a backend reply with its own status (RouteReply), SSE started', { httpStatus: 404 }, true, 200],
  ]
  for (const [name, error, committed, status] of rows) t.equal(statusFor(error, { committed }), status, `${name} → ${status}`)
})
