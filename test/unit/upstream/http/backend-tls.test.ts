// backendConnectOptions: an HTTP backend's config → undici's connect options and allowH2.
import t from 'tap'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { backendConnectOptions } from '../../../../src/upstream/http/backend-tls.ts'
import type { HttpBackendConfig } from '../../../../src/config/types.ts'

const caFile = join(mkdtempSync(join(tmpdir(), 'mcp-gw-ca-')), 'ca.pem')
writeFileSync(caFile, 'PEM TEXT')
const BASE = { name: 'b', transport: 'http', namespace: '', timeoutMs: 1000, headers: {}, connections: 1, maxReplyBytes: 1024, downAfterFailures: 3, http2: true } as const

const cases: Array<[string, Partial<HttpBackendConfig>, unknown]> = [
  ['http:// → nothing (no TLS, HTTP/1.1)', { url: 'http://127.0.0.1/mcp' }, {}],
  ['https:// without tls → certificates checked, h2 offered', { url: 'https://x/mcp' }, { connect: { rejectUnauthorized: true }, allowH2: true }],
  ['caFile and serverName → read, passed on', { url: 'https://x/mcp', tls: { caFile, serverName: 'mcp.internal', rejectUnauthorized: true } },
    { connect: { rejectUnauthorized: true, ca: 'PEM TEXT', servername: 'mcp.internal' }, allowH2: true }],
  ['http2 false → HTTP/1.1 only', { url: 'https://x/mcp', http2: false }, { connect: { rejectUnauthorized: true }, allowH2: false }],
  ['rejectUnauthorized false → passed on', { url: 'https://x/mcp', tls: { rejectUnauthorized: false } }, { connect: { rejectUnauthorized: false }, allowH2: true }],
]
for (const [name, config, expected] of cases) {
  t.same(backendConnectOptions({ ...BASE, ...config } as HttpBackendConfig), expected, name)
}

t.throws(() => backendConnectOptions({ ...BASE, url: 'https://x/mcp', tls: { caFile: '/nonexistent/ca.pem', rejectUnauthorized: true } }), {
  name: 'ConfigError', errors: [/backends\.b\.tls\.caFile: file \/nonexistent\/ca\.pem cannot be read \(ENOENT\)/],
}, 'an unreadable caFile → a ConfigError naming the backend')
