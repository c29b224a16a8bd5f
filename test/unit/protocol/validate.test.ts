// The modern request checks in order (G2 step 7): version header → _meta → header/body equality →
// version support → method → log level; and the answer to a legacy initialize (VER-7, E30).
import t from 'tap'
import type { IncomingHttpHeaders } from 'node:http'
import { GatewayError, type ErrorCode } from '../../../src/errors.ts'
import type { JsonRpcRequest } from '../../../src/protocol/jsonrpc.ts'
import { rejectInitialize, validateModernRequest, type ValidRequest } from '../../../src/protocol/validate.ts'

const V = 'io.modelcontextprotocol/protocolVersion'
const C = 'io.modelcontextprotocol/clientCapabilities'
const L = 'io.modelcontextprotocol/logLevel'

function req(method: string, params: Record<string, unknown> | undefined, meta: Record<string, unknown> | null = {}): JsonRpcRequest {
  const full = meta === null ? params : { ...params, _meta: { [V]: '2026-07-28', [C]: {}, ...meta } }
  return { jsonrpc: '2.0', id: 1, method, ...(full === undefined ? {} : { params: full }) }
}

function hdr(method: string, extra: Record<string, string | undefined> = {}): IncomingHttpHeaders {
  const all: Record<string, string | undefined> = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...extra }
  return Object.fromEntries(Object.entries(all).filter(([, v]) => v !== undefined))
}

type Expected = { code: ErrorCode; status: number; rpc: number; data?: unknown } | 'valid'

t.test('validateModernRequest', async (t) => {
  const cases: Array<[string, IncomingHttpHeaders, JsonRpcRequest, Expected]> = [
    ['tools/list, all in order', hdr('tools/list'), req('tools/list', {}), 'valid'],
    ['tools/call with Mcp-Name', hdr('tools/call', { 'mcp-name': 'a__echo' }), req('tools/call', { name: 'a__echo' }), 'valid'],
    ['tools/call with sentinel Mcp-Name', hdr('tools/call', { 'mcp-name': '=?base64?YV9fZWNobw==?=' }), req('tools/call', { name: 'a__echo' }), 'valid'],
    ['no MCP-Protocol-Version, no _meta either', hdr('tools/list', { 'mcp-protocol-version': undefined }), req('tools/list', {}, null),
      { code: 'MCP_GATEWAY_HEADER_MISMATCH', status: 400, rpc: -32020 }],
    ['no _meta', hdr('tools/list'), req('tools/list', {}, null), { code: 'MCP_GATEWAY_META_MISSING', status: 400, rpc: -32602 }],
    ['no params at all', hdr('tools/list'), req('tools/list', undefined, null), { code: 'MCP_GATEWAY_META_MISSING', status: 400, rpc: -32602 }],
    ['_meta without clientCapabilities', hdr('tools/list'), req('tools/list', {}, { [C]: undefined }), { code: 'MCP_GATEWAY_META_MISSING', status: 400, rpc: -32602 }],
    ['no Mcp-Method', hdr('tools/list', { 'mcp-method': undefined }), req('tools/list', {}), { code: 'MCP_GATEWAY_HEADER_MISMATCH', status: 400, rpc: -32020 }],
    ['Mcp-Name mismatch', hdr('tools/call', { 'mcp-name': 'b__echo' }), req('tools/call', { name: 'a__echo' }), { code: 'MCP_GATEWAY_HEADER_MISMATCH', status: 400, rpc: -32020 }],
    ['header 2026-07-28, _meta 9999 → mismatch before support', hdr('tools/list'), req('tools/list', {}, { [V]: '9999' }),
      { code: 'MCP_GATEWAY_HEADER_MISMATCH', status: 400, rpc: -32020 }],
    ['both 9999 → unsupported with data', hdr('tools/list', { 'mcp-protocol-version': '9999' }), req('tools/list', {}, { [V]: '9999' }),
      { code: 'MCP_GATEWAY_VERSION_UNSUPPORTED', status: 400, rpc: -32022, data: { supported: ['2026-07-28'], requested: '9999' } }],
    ['both 2025-11-25 without initialize → unsupported', hdr('tools/list', { 'mcp-protocol-version': '2025-11-25' }), req('tools/list', {}, { [V]: '2025-11-25' }),
      { code: 'MCP_GATEWAY_VERSION_UNSUPPORTED', status: 400, rpc: -32022, data: { supported: ['2026-07-28'], requested: '2025-11-25' } }],
    ['unknown method', hdr('x/y'), req('x/y', {}), { code: 'MCP_GATEWAY_METHOD_NOT_FOUND', status: 404, rpc: -32601 }],
    ['ping', hdr('ping'), req('ping', {}), { code: 'MCP_GATEWAY_METHOD_NOT_FOUND', status: 404, rpc: -32601 }],
    ['unsupported version beats unknown method', hdr('x/y', { 'mcp-protocol-version': '9' }), req('x/y', {}, { [V]: '9' }),
      { code: 'MCP_GATEWAY_VERSION_UNSUPPORTED', status: 400, rpc: -32022, data: { supported: ['2026-07-28'], requested: '9' } }],
    ['logLevel "loud"', hdr('tools/list'), req('tools/list', {}, { [L]: 'loud' }), { code: 'MCP_GATEWAY_LOG_LEVEL_INVALID', status: 400, rpc: -32602 }],
    ['logLevel a number', hdr('tools/list'), req('tools/list', {}, { [L]: 3 }), { code: 'MCP_GATEWAY_LOG_LEVEL_INVALID', status: 400, rpc: -32602 }],
    ['logLevel "warning"', hdr('tools/list'), req('tools/list', {}, { [L]: 'warning' }), 'valid'],
  ]
  for (const [name, headers, request, expected] of cases) {
    const result = validateModernRequest(headers, request)
    if (expected === 'valid') {
      t.notOk(result instanceof GatewayError, `${name} → valid`)
      continue
    }
    const label = `${name} → ${expected.rpc} / HTTP ${expected.status}`
    if (!(result instanceof GatewayError)) {
      t.fail(label)
      continue
    }
    t.match(result, { code: expected.code, httpStatus: expected.status, rpcCode: expected.rpc }, label)
    if (expected.data !== undefined) t.same(result.data, expected.data, `${name} → data ${JSON.stringify(expected.data)}`)
  }
})

t.test('validateModernRequest → the ValidRequest it returns', async (t) => {
  const result = validateModernRequest(hdr('tools/call', { 'mcp-name': 'e' }), req('tools/call', { name: 'e' }, { [L]: 'info', progressToken: 't' })) as ValidRequest
  t.equal(result.version, '2026-07-28', 'version from _meta')
  t.equal(result.logLevel, 'info', 'logLevel from _meta')
  t.equal(result.params.name, 'e', 'params kept')
  t.equal(result.meta.progressToken, 't', 'meta kept')
  t.match(result.spec, { nameParam: 'name', mrtr: true }, 'method spec attached')
  const noLevel = validateModernRequest(hdr('tools/list'), req('tools/list', {})) as ValidRequest
  t.equal(noLevel.logLevel, undefined, 'no logLevel → undefined')
})

t.test('rejectInitialize', async (t) => {
  const cases: Array<[string, Record<string, unknown> | undefined, string]> = [
    ['protocolVersion 2025-11-25', { protocolVersion: '2025-11-25' }, '2025-11-25'],
    ['protocolVersion 2024-11-05', { protocolVersion: '2024-11-05' }, '2024-11-05'],
    ['no params', undefined, '2025-11-25'],
    ['protocolVersion not a string', { protocolVersion: 2025 }, '2025-11-25'],
  ]
  for (const [name, params, requested] of cases) {
    const err = rejectInitialize({ jsonrpc: '2.0', id: 0, method: 'initialize', ...(params ? { params } : {}) })
    t.match(err, { rpcCode: -32022, httpStatus: 400 }, `${name} → -32022 / 400`)
    t.same(err.data, { supported: ['2026-07-28'], requested }, `${name} → data.requested ${requested}`)
  }
})
