// A seeded corpus of malformed HTTP requests for the MCP endpoint: the same seed gives the same
// requests, byte for byte. Each request is one of a few shapes (a broken request line, broken or
// repeated headers, broken framing, a broken body) built from small tables of known-bad values.

// mulberry32: a tiny deterministic PRNG.
export function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let x = Math.imul(a ^ (a >>> 15), 1 | a)
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}

const METHODS = ['POST', 'POST', 'POST', 'GET', 'DELETE', 'PUT', 'PATCH', 'QUERY', 'PROPFIND', 'OPTIONS', 'HEAD', 'FOO', 'P0ST', 'post', '', 'CONNECT']
const TARGETS = ['/mcp', '/mcp', '/mcp', '/mcp?x=%zz', '/m%cp', 'http://evil.example/mcp', '*', '/mcp/../mcp', `/mcp?${'a'.repeat(3000)}`, '/mcp%00', '/MCP', '//mcp', 'mcp', '/mcp#f']
const VERSIONS = ['HTTP/1.1', 'HTTP/1.1', 'HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/1.x', '', 'HTTP/1.1 extra']
const HOSTS = [['Host: 127.0.0.1'], ['Host: 127.0.0.1'], ['Host: localhost:80@evil.example'], ['Host: [::1]evil.example'], ['Host: 127.0.0.1', 'Host: evil.example'], [], ['Host:'], ['Host: evil.example'], ['Host : 127.0.0.1']]
const TYPES = ['Content-Type: application/json', 'Content-Type: application/json', 'Content-Type: text/plain', 'Content-Type: application/jsonl', '', 'Content-Type: application/json\r\nContent-Type: text/plain', 'Content-Type: multipart/form-data; boundary=x']
const EXTRAS = [
  '', '', 'Origin: https://evil.example', 'Origin: null', 'Mcp-Session-Id: garbage', 'MCP-Protocol-Version: 1999-01-01', 'Mcp-Method: tools/call',
  'X-Bad\u0001: v', 'X-Fold: a\r\n  folded', `X-Big: ${'b'.repeat(20_000)}`, 'Authorization: Bearer x', 'Accept: text/html', 'Mcp-Param-Authorization: Bearer y',
  'Transfer-Encoding: chunked, identity', 'Expect: 100-continue', 'Connection: upgrade\r\nUpgrade: websocket',
]
const BODIES = [
  '{"jsonrpc":"2.0","id":1,"method":"ping","params":{}}', '{', '', 'null', '[]', '[{"jsonrpc":"2.0","id":1,"method":"ping"}]', '{"jsonrpc":"1.0"}',
  `{"jsonrpc":"2.0","id":"${'i'.repeat(5000)}","method":"tools/call","params":{"name":"x"}}`, '\u0000\u0001\u0002', '{"jsonrpc":"2.0","method":"notifications/x"}',
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}',
  '{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', '\uFEFF{"jsonrpc":"2.0","id":1,"method":"ping"}',
]
// How the body is framed: right, absent, wrong length, conflicting, broken chunks.
const FRAMINGS = ['length', 'length', 'length', 'none', 'short', 'long', 'negative', 'double', 'chunked', 'bad-chunk', 'chunked-and-length', 'huge']

function pick<T>(random: () => number, list: readonly T[]): T {
  return list[Math.floor(random() * list.length)]
}

function frame(framing: string, body: string): { headers: string[]; payload: string } {
  const length = Buffer.byteLength(body)
  switch (framing) {
    case 'none': return { headers: [], payload: body }
    case 'short': return { headers: [`Content-Length: ${Math.max(0, length - 3)}`], payload: body }
    case 'long': return { headers: [`Content-Length: ${length + 7}`], payload: body }
    case 'negative': return { headers: ['Content-Length: -1'], payload: body }
    case 'double': return { headers: [`Content-Length: ${length}`, `Content-Length: ${length + 1}`], payload: body }
    case 'chunked': return { headers: ['Transfer-Encoding: chunked'], payload: `${length.toString(16)}\r\n${body}\r\n0\r\n\r\n` }
    case 'bad-chunk': return { headers: ['Transfer-Encoding: chunked'], payload: `zz\r\n${body}\r\n` }
    case 'chunked-and-length': return { headers: ['Transfer-Encoding: chunked', `Content-Length: ${length}`], payload: `${length.toString(16)}\r\n${body}\r\n0\r\n\r\n` }
    case 'huge': return { headers: ['Content-Length: 17179869184'], payload: body }
    default: return { headers: [`Content-Length: ${length}`], payload: body }
  }
}

// One request, as the bytes to send.
export function hostileRequest(random: () => number): string {
  const line = [pick(random, METHODS), pick(random, TARGETS), pick(random, VERSIONS)].filter((part) => part !== '').join(' ')
  const body = pick(random, BODIES)
  const framed = frame(pick(random, FRAMINGS), body)
  const headers = [...pick(random, HOSTS), pick(random, TYPES), pick(random, EXTRAS), ...framed.headers, 'Connection: close'].filter((h) => h !== '')
  return `${line}\r\n${headers.join('\r\n')}\r\n\r\n${framed.payload}`
}

export function hostileCorpus(seed: number, size: number): string[] {
  const random = prng(seed)
  return Array.from({ length: size }, () => hostileRequest(random))
}
