// HTTPS backends (README "HTTPS and HTTP/2"): a backend behind its own test CA is refused until
// its `tls.caFile` is configured; `serverName` picks the name checked; h2 is spoken to it where it
// offers h2 by ALPN (undici allowH2), HTTP/1.1 with `http2: false`. The backend is a real SDK v2 server over TLS.
import t, { type Test } from 'tap'
import { startGateway } from '../helpers/start-gateway.ts'
import { createTestCa, hasOpenssl, OPENSSL_MISSING } from '../helpers/test-pki.ts'
import { createRawClient } from '../helpers/mcp-client.ts'
import { startMcpHttpApp } from '../fixtures/lib/mcp-http-app.ts'
import { createBackendFactory } from '../fixtures/sdk-http-backend.ts'

if (!hasOpenssl()) {
  t.plan(0, OPENSSL_MISSING)
  process.exit(0)
}

const ca = createTestCa(t, 'backend CA')
const cert = ca.issue('backend')
const versions: string[] = []
const secure = await startMcpHttpApp({
  createFactory: (bus) => createBackendFactory('secure', () => undefined, bus),
  tls: { cert: cert.cert, key: cert.key, http2: true, onRequest: (version) => versions.push(version) },
})
t.teardown(() => secure.close())
const ECHO = { name: 's__echo', arguments: { text: 'over tls' } }

async function call(t: Test, backend: Record<string, unknown>): Promise<{ reply: any; reason?: string }> {
  const gateway = await startGateway(t, { backends: [{ name: 's', transport: 'http', url: secure.url, namespace: 's', ...backend }] })
  const reply = (await createRawClient(t, gateway.url).rpc('tools/call', ECHO)).json
  return { reply, reason: gateway.app.gateway.backends.entries[0].backend.status().reason }
}

t.test('no caFile → the backend\'s certificate is refused: down, with the reason', async (t) => {
  const { reply, reason } = await call(t, {})
  t.equal(reply.error?.code, -32603, 'the call fails (gateway-origin -32603)')
  t.match(reason, /cannot reach backend \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\)/, 'readyz says why')
})

t.test('caFile, http2 false → served over HTTPS/1.1', async (t) => {
  versions.length = 0
  const { reply } = await call(t, { tls: { caFile: ca.certFile }, http2: false })
  t.same(reply.result?.content, [{ type: 'text', text: 'secure:over tls' }])
  t.ok(versions.length > 0 && versions.every((v) => v === '1.1'), `HTTP/1.1 only (${versions.join(', ')})`)
})

t.test('caFile (http2 by default) → h2 by ALPN', async (t) => {
  versions.length = 0
  const { reply } = await call(t, { tls: { caFile: ca.certFile } })
  t.same(reply.result?.content, [{ type: 'text', text: 'secure:over tls' }])
  t.ok(versions.length > 0 && versions.every((v) => v === '2.0'), `h2 only (${versions.join(', ')})`)
})

t.test('serverName → the name the certificate is checked against', async (t) => {
  const right = await call(t, { tls: { caFile: ca.certFile, serverName: 'localhost' } })
  t.same(right.reply.result?.content, [{ type: 'text', text: 'secure:over tls' }], 'localhost (in the SAN) → served')
  const wrong = await call(t, { tls: { caFile: ca.certFile, serverName: 'other.example' } })
  t.equal(wrong.reply.error?.code, -32603, 'a name the certificate lacks → refused')
  t.match(wrong.reason, /cannot reach backend \(ERR_TLS_CERT_ALTNAME_INVALID\)/)
})

t.test('rejectUnauthorized false → any certificate accepted (a test bench only)', async (t) => {
  const { reply } = await call(t, { tls: { rejectUnauthorized: false } })
  t.same(reply.result?.content, [{ type: 'text', text: 'secure:over tls' }])
})
