// The real entry point: config errors listed with exit 2; SIGTERM drains in-flight requests and
// exits 0; a client's credentials reach neither a backend nor the log (AUTH-8, AUTH-15).
import t from 'tap'
import { fileURLToPath } from 'node:url'
import { startFixture } from '../helpers/backend-process.ts'
import { createRawClient } from '../helpers/mcp-client.ts'
import { spawnGateway, startGatewayProcess, writeConfig } from '../helpers/gateway-process.ts'
import { startRecordingBackend } from '../helpers/recording-backend.ts'

const SDK_BACKEND = fileURLToPath(new URL('../fixtures/sdk-http-backend.ts', import.meta.url))

t.test('invalid config → exit 2, every error listed in one message', async (t) => {
  const path = writeConfig({ port: 'x', backends: [{ name: 'a', transport: 'ftp' }, { name: 'b b', transport: 'http', url: 'nope' }], extra: 1 })
  const { exited, lines } = spawnGateway(t, path)
  t.equal(await exited, 2)
  const text = lines.join('\n')
  for (const fragment of ['port:', 'backends[0].transport', 'backends[1].name', 'backends[1].url', 'config.extra']) t.match(text, fragment)
})

t.test('config file that is not JSON → exit 2 naming the file', async (t) => {
  const path = writeConfig('{ not json')
  const { exited, lines } = spawnGateway(t, path)
  t.equal(await exited, 2)
  t.match(lines.join('\n'), path)
})

t.test('SIGTERM during a call → the call completes, then the process exits 0', async (t) => {
  const backend = await startFixture(t, SDK_BACKEND, ['--name', 'alpha'])
  const gw = await startGatewayProcess(t, writeConfig({ drainDelayMs: 0, backends: [{ name: 'a', transport: 'http', url: backend.url, namespace: '' }] }))
  await gw.waitForLine(/"backend up"/)
  const raw = createRawClient(t, gw.url)
  const ready = await raw.send('GET', '/readyz')
  t.equal(ready.status, 200)
  const stream = await raw.stream('tools/call', { name: 'progress', arguments: { steps: 3, delayMs: 150 } }, { meta: { progressToken: 'p' } })
  const events: string[] = []
  for await (const event of stream.events) {
    if (events.length === 0) gw.child.kill('SIGTERM') // in flight: the first progress event arrived
    events.push(event.message.method ?? 'result')
  }
  t.same(events, ['notifications/progress', 'notifications/progress', 'notifications/progress', 'result'], 'the in-flight call finished')
  t.equal(await gw.exited, 0, gw.lines.join('\n'))
  t.ok(gw.lines.some((l) => l.includes('shutting down')), 'shutdown logged')
})

t.test('client Authorization → never sent to the backend (which gets its own), never logged', async (t) => {
  const backend = await startRecordingBackend(t)
  const config = { logLevel: 'debug', backends: [{ name: 'a', transport: 'http', url: backend.url, namespace: '', headers: { authorization: 'Bearer backend-own-token' } }] }
  const gw = await startGatewayProcess(t, writeConfig(config))
  await gw.waitForLine(/"backend up"/)
  const raw = createRawClient(t, gw.url)
  const reply = await raw.rpc('tools/call', { name: 'who', arguments: {} }, { headers: { authorization: 'Bearer client-secret-123', cookie: 'session=client-cookie-456' } })
  t.equal(reply.status, 200)
  const call = backend.requests.at(-1)!.headers
  t.equal(call['mcp-method'], 'tools/call')
  t.equal(call.authorization, 'Bearer backend-own-token', "the backend's own credential")
  t.equal(call.cookie, undefined, 'no client cookie')
  t.notMatch(JSON.stringify(backend.requests.map((r) => r.headers)), /client-secret-123/)
  t.notMatch(gw.lines.join('\n'), /client-secret-123|client-cookie-456|backend-own-token/, 'no secret in the log, even at debug')
})

t.test('MCP_GATEWAY_STATE_SECRET under 32 bytes → exit 2 naming stateSecret, the secret not echoed', async (t) => {
  const path = writeConfig({ backends: [] })
  const { exited, lines } = spawnGateway(t, path, { MCP_GATEWAY_STATE_SECRET: 'short-secret-value' })
  t.equal(await exited, 2)
  const text = lines.join('\n')
  t.match(text, /stateSecret: must be at least 32 bytes, got 18/)
  t.notMatch(text, /short-secret-value/, 'the secret is not in the output')
})
