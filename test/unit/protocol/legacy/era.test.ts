// Era of a POST (LEGACY-1, VER-3, HTTP-11): first match wins.
import t from 'tap'
import { classifyMessage } from '../../../../src/protocol/jsonrpc.ts'
import { getSessionHeader, isLegacyPost } from '../../../../src/protocol/legacy/era.ts'

const MODERN_META = { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } }
const SESSION = { 'mcp-session-id': 'abc' }

t.test('isLegacyPost', async (t) => {
  const cases: Array<[string, Record<string, string>, unknown, boolean]> = [
    ['initialize without _meta → legacy', {}, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25' } }, true],
    ['initialize with modern _meta → modern (removed method)', {}, { jsonrpc: '2.0', id: 1, method: 'initialize', params: MODERN_META }, false],
    ['tools/list with modern _meta and a session id → modern (HTTP-11)', SESSION, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: MODERN_META }, false],
    ['tools/list with a session id → legacy', SESSION, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, true],
    ['notification with a session id → legacy', SESSION, { jsonrpc: '2.0', method: 'notifications/initialized' }, true],
    ['response with a session id → legacy (LEGACY-7)', SESSION, { jsonrpc: '2.0', id: 'g1', result: {} }, true],
    ['response without a session id → modern (refused there, HTTP-4)', {}, { jsonrpc: '2.0', id: 'g1', result: {} }, false],
    ['tools/list, legacy version header, no session → legacy (400 there, LEGACY-4)', { 'mcp-protocol-version': '2025-11-25' }, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, true],
    ['tools/list, modern version header, no _meta → modern (-32602 there)', { 'mcp-protocol-version': '2026-07-28' }, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, false],
    ['tools/list, no header, no session → modern (-32020 there)', {}, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, false],
    ['notification, no session → modern (202 there, HTTP-8)', {}, { jsonrpc: '2.0', method: 'notifications/cancelled' }, false],
    ['batch with a session id → modern (invalid either way)', SESSION, [{ jsonrpc: '2.0', id: 1, method: 'ping' }], false],
  ]
  for (const [name, headers, body, expected] of cases) t.equal(isLegacyPost(headers, classifyMessage(body)), expected, name)
})

t.test('getSessionHeader', async (t) => {
  t.equal(getSessionHeader({ 'mcp-session-id': 'x.y' }), 'x.y', 'string → itself')
  t.equal(getSessionHeader({}), undefined, 'absent → undefined')
  t.equal(getSessionHeader({ 'mcp-session-id': ['a', 'b'] }), undefined, 'repeated → undefined')
})
