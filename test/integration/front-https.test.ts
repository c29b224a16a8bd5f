// HTTPS on the front (README "HTTPS and HTTP/2"): the v2 SDK client and undici (allowH2) over TLS,
// curl over h2, HTTP/1.1 and h2c, client certificates, a bad certificate at start, and which
// forwarded headers are believed behind a load balancer (`trustProxy`).
import t from 'tap'
import { execFile, spawnSync } from 'node:child_process'
import { promisify } from 'node:util'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { buildConnector, type Agent } from 'undici'
import { startGateway } from '../helpers/start-gateway.ts'
import { createTestCa, startTlsBench } from '../helpers/test-pki.ts'
import { buildRpc, connectClient, createRawClient } from '../helpers/mcp-client.ts'
import { build } from '../../src/app.ts'
import { validateConfig } from '../../src/config/schema.ts'
import type { GatewayConfig } from '../../src/config/types.ts'

const { ca, server, tls, backends } = await startTlsBench(t)
const gateway = await startGateway(t, { backends, tls })
const ECHO = { name: 'a__echo', arguments: { text: 'hi' } }

t.test('v2 SDK client over HTTPS → tools/list and tools/call', async (t) => {
  const client = await connectClient(t, gateway.url, 'https-test', { connect: { ca: ca.cert } })
  const tools = await client.listTools()
  t.ok(tools.tools.some((tool) => tool.name === 'a__echo'), 'a__echo listed')
  t.same((await client.callTool(ECHO)).content, [{ type: 'text', text: 'alpha:hi' }])
})

t.test('undici with allowH2 over HTTPS → h2 negotiated by ALPN, tools/call answered', async (t) => {
  const protocols: Array<string | false> = []
  const base = buildConnector({ ca: ca.cert, allowH2: true })
  const connect: buildConnector.connector = (options, callback) => base(options, (err, socket) => {
    if (socket !== null) protocols.push((socket as { alpnProtocol?: string | false }).alpnProtocol ?? false)
    callback(err as Error, socket as never)
  })
  const raw = createRawClient(t, gateway.url, { agent: { allowH2: true, connect } as Agent.Options })
  const reply = await raw.rpc('tools/call', ECHO)
  t.equal(reply.status, 200)
  t.same(reply.json.result.content, [{ type: 'text', text: 'alpha:hi' }])
  t.same(protocols, ['h2'], 'one connection, h2')
})

t.test('without the CA → the client refuses the gateway\'s certificate', async (t) => {
  const raw = createRawClient(t, gateway.url)
  await t.rejects(raw.rpc('tools/call', ECHO), { code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' })
})

// Asynchronous: the gateway answers from this very process.
async function curl(args: string[]): Promise<{ version: string; status: string; body: string }> {
  const out = await promisify(execFile)('curl', ['-sS', '-m', '20', '-w', '\n%{http_version} %{http_code}', ...args], { encoding: 'utf8' })
  const lines = out.stdout.trimEnd().split('\n')
  const [version, status] = (lines.pop() ?? '').split(' ')
  return { version, status, body: lines.join('\n') }
}

t.test('curl: --http2 over TLS → h2; --http1.1 → HTTP/1.1 still offered; --http2-prior-knowledge → h2c', { skip: spawnSync('curl', ['--version']).status === 0 ? false : 'curl not found: apt-get install -y curl' }, async (t) => {
  const h2c = await startGateway(t, { backends, http2: 'h2c' })
  const { body, headers } = buildRpc('tools/call', ECHO)
  const headerArgs = Object.entries(headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`])
  const cases: Array<[string, string[], string]> = [
    ['--http2 (ALPN)', ['--http2', '--cacert', ca.certFile, gateway.url], '2'],
    ['--http1.1', ['--http1.1', '--cacert', ca.certFile, gateway.url], '1.1'],
    ['--http2-prior-knowledge (h2c)', ['--http2-prior-knowledge', h2c.url], '2'],
  ]
  for (const [name, args, version] of cases) {
    const reply = await curl([...headerArgs, '-d', JSON.stringify(body), ...args])
    t.equal(reply.version, version, `${name} → HTTP/${version}`)
    t.equal(reply.status, '200', `${name} → 200`)
    t.match(reply.body, /alpha:hi/, `${name} → the tool's answer`)
  }
})

t.test('client certificates (caFile + requestClientCert) → without one refused, with one served', async (t) => {
  const clientCa = createTestCa(t, 'client CA')
  const client = clientCa.issue('mesh-peer', 'client')
  const mtls = await startGateway(t, { backends, tls: { ...tls, caFile: clientCa.certFile, requestClientCert: true } })
  const without = createRawClient(t, mtls.url, { agent: { connect: { ca: ca.cert } } })
  await t.rejects(without.rpc('tools/call', ECHO), 'no client certificate → the handshake fails')
  const other = ca.issue('other-client', 'client')
  const wrongCa = createRawClient(t, mtls.url, { agent: { connect: { ca: ca.cert, cert: other.cert, key: other.key } } })
  await t.rejects(wrongCa.rpc('tools/call', ECHO), 'a certificate from another CA → refused')
  const withCert = createRawClient(t, mtls.url, { agent: { connect: { ca: ca.cert, cert: client.cert, key: client.key } } })
  t.equal((await withCert.rpc('tools/call', ECHO)).status, 200, 'the CA\'s client certificate → served')
})

async function buildError(raw: Record<string, unknown>): Promise<string> {
  const result = validateConfig({ logLevel: 'silent', ...raw })
  if (!result.ok) return result.errors.join('\n')
  return build(result.config as GatewayConfig, { logger: false }).then(async (app) => (await app.close(), 'built'), (err: Error) => `${err.name}: ${err.message}`)
}

t.test('a bad certificate at start → a ConfigError naming the file', async (t) => {
  const other = ca.issue('other')
  const garbage = join(ca.dir, 'garbage.pem')
  writeFileSync(garbage, 'not a certificate\n')
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ['missing file', { certFile: join(ca.dir, 'absent.pem'), keyFile: server.keyFile }, /tls\.certFile: file .*absent\.pem cannot be read \(ENOENT\)/],
    ['key of another certificate', { certFile: server.certFile, keyFile: other.keyFile }, /tls\.keyFile: .*other\.key is not the key of .*gateway\.pem/],
    ['not PEM', { certFile: garbage, keyFile: server.keyFile }, /ConfigError: [\s\S]*tls: .*garbage\.pem/],
  ]
  for (const [name, files, expected] of cases) t.match(await buildError({ tls: files }), expected, `${name} → ${expected}`)
})

t.test('trustProxy → X-Forwarded-Host believed for the Host check; without it, ignored', async (t) => {
  const cases: Array<[string, boolean, Record<string, string>, number]> = [
    ['trusted proxy, public name forwarded, internal Host', true, { host: 'gateway.internal:8080', 'x-forwarded-host': 'localhost' }, 405],
    ['trusted proxy, forwarded name not allowed', true, { host: 'localhost', 'x-forwarded-host': 'evil.example' }, 403],
    ['untrusted: X-Forwarded-Host ignored, Host allowed', false, { host: 'localhost', 'x-forwarded-host': 'evil.example' }, 405],
    ['untrusted: X-Forwarded-Host ignored, Host refused', false, { host: 'gateway.internal:8080', 'x-forwarded-host': 'localhost' }, 403],
  ]
  for (const [name, trustProxy, headers, status] of cases) {
    const plain = await startGateway(t, { backends: [], trustProxy })
    const reply = await plain.app.inject({ method: 'GET', url: '/mcp', headers })
    t.equal(reply.statusCode, status, `${name} → ${status}`)
  }
})
