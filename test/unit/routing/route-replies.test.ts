// What the router hands the transport for an error (router.ts replyFrom*): gateway errors with their
// catalogue status, backend failures as gateway-origin -32603 naming the backend (ERR-7), and a
// backend's own JSON-RPC errors passed through, rewritten only where the catalogue says (G11).
import t from 'tap'
import { GatewayError, ORIGIN_KEY, UPSTREAM_FAILURE_CODES } from '../../../src/errors.ts'
import type { JsonObject, JsonRpcErrorObject } from '../../../src/protocol/jsonrpc.ts'
import { replyFromBackendError, replyFromBackendRpcError, replyFromGatewayError, type RouteReply } from '../../../src/routing/router.ts'
import { BackendError, type BackendFailure } from '../../../src/upstream/backend.ts'

t.test('replyFromGatewayError → its catalogue code and status, origin gateway', async (t) => {
  const cases: Array<[string, GatewayError, RouteReply]> = [
    ['METHOD_NOT_FOUND', new GatewayError('MCP_GATEWAY_METHOD_NOT_FOUND', 'x'),
      { ok: false, error: { code: -32601, message: 'Method not found: x' }, httpStatus: 404, origin: 'gateway', code: 'MCP_GATEWAY_METHOD_NOT_FOUND' }],
    ['RESOURCE_UNKNOWN with data', new GatewayError('MCP_GATEWAY_RESOURCE_UNKNOWN', 'u://x', { data: { uri: 'u://x' } }),
      { ok: false, error: { code: -32602, message: 'Resource not found: u://x', data: { uri: 'u://x' } }, httpStatus: 200, origin: 'gateway', code: 'MCP_GATEWAY_RESOURCE_UNKNOWN' }],
  ]
  for (const [name, err, expected] of cases) t.same(replyFromGatewayError(err), expected, `${name} → ${JSON.stringify(expected)}`)
})

t.test('replyFromBackendError → -32603, in band, data naming the backend and the reason (ERR-7)', async (t) => {
  const cases: Array<[BackendFailure, string]> = [
    ['unreachable', 'Backend unavailable: slow: connect ECONNREFUSED'],
    ['timeout', 'Backend timed out: slow: connect ECONNREFUSED'],
    ['bad_reply', 'Backend sent an invalid reply: slow: connect ECONNREFUSED'],
    ['closed', 'Backend connection closed: slow: connect ECONNREFUSED'],
    ['aborted', 'Backend connection closed: slow: connect ECONNREFUSED'],
  ]
  for (const [reason, message] of cases) {
    const reply = replyFromBackendError(new BackendError('slow', reason, 'connect ECONNREFUSED'))
    t.same(reply, {
      ok: false, httpStatus: 200, origin: 'gateway', code: UPSTREAM_FAILURE_CODES[reason],
      error: { code: -32603, message, data: { [ORIGIN_KEY]: 'gateway', backend: 'slow', reason } },
    }, `${reason} → "${message}"`)
  }
})

t.test('replyFromBackendRpcError → passed through; -32002 rewritten; -32020/-32021/-32601 keep their status', async (t) => {
  const cases: Array<[string, JsonRpcErrorObject, JsonObject, RouteReply]> = [
    ['-32602 from the backend', { code: -32602, message: 'bad args', data: { field: 'a' } }, { name: 't' },
      { ok: false, error: { code: -32602, message: 'bad args', data: { field: 'a' } }, httpStatus: 200, origin: 'backend' }],
    ['-32603 from the backend', { code: -32603, message: 'boom' }, {},
      { ok: false, error: { code: -32603, message: 'boom' }, httpStatus: 200, origin: 'backend' }],
    ['-32020 (ERR-2)', { code: -32020, message: 'Mcp-Param-Region missing' }, { name: 't' },
      { ok: false, error: { code: -32020, message: 'Mcp-Param-Region missing' }, httpStatus: 400, origin: 'backend' }],
    ['legacy -32042 (ERR-5) → -32603, the backend\'s error kept for a legacy client', { code: -32042, message: 'sign in', data: { elicitations: [] } }, {},
      { ok: false, error: { code: -32603, message: 'sign in', data: { elicitations: [] } }, httpStatus: 200, origin: 'backend', received: { code: -32042, message: 'sign in', data: { elicitations: [] } } }],
    ['undefined -32099 (ERR-3) → -32603', { code: -32099, message: 'x' }, {},
      { ok: false, error: { code: -32603, message: 'x' }, httpStatus: 200, origin: 'backend', received: { code: -32099, message: 'x' } }],
    ['-32019 (below the reserved range) → as sent', { code: -32019, message: 'x' }, {},
      { ok: false, error: { code: -32019, message: 'x' }, httpStatus: 200, origin: 'backend' }],
    ['-32021 (E15)', { code: -32021, message: 'needs sampling' }, {},
      { ok: false, error: { code: -32021, message: 'needs sampling' }, httpStatus: 400, origin: 'backend' }],
    ['-32601 (ERR-8)', { code: -32601, message: 'gone' }, {},
      { ok: false, error: { code: -32601, message: 'gone' }, httpStatus: 404, origin: 'backend' }],
    ['legacy -32002 without data (ERR-5)', { code: -32002, message: 'Resource not found' }, { uri: 'file:///x' },
      { ok: false, error: { code: -32602, message: 'Resource not found', data: { uri: 'file:///x' } }, httpStatus: 200, origin: 'backend' }],
    ['legacy -32002 with data (kept, uri added)', { code: -32002, message: 'nope', data: { hint: 'h' } }, { uri: 'file:///y' },
      { ok: false, error: { code: -32602, message: 'nope', data: { hint: 'h', uri: 'file:///y' } }, httpStatus: 200, origin: 'backend' }],
    ['legacy -32002 for a completion ref/resource (sep-2164)', { code: -32002, message: 'gone' }, { ref: { type: 'ref/resource', uri: 'file:///t/{x}' } },
      { ok: false, error: { code: -32602, message: 'gone', data: { uri: 'file:///t/{x}' } }, httpStatus: 200, origin: 'backend' }],
    ['legacy -32002, no uri in params → the backend\'s data.uri kept', { code: -32002, message: 'gone', data: { uri: 'file:///z' } }, {},
      { ok: false, error: { code: -32602, message: 'gone', data: { uri: 'file:///z' } }, httpStatus: 200, origin: 'backend' }],
  ]
  for (const [name, error, params, expected] of cases) t.same(replyFromBackendRpcError(error, params), expected, `${name} → ${JSON.stringify(expected)}`)
})
