/**
 * The SDK v2 backend fixture, driven by the SDK v2 client pinned to 2026-07-28.
 *
 * Pinning the v2 client to 2026-07-28 (copy this):
 *
 *   const client = new Client({ name: 'test', version: '1.0.0' },
 *     { versionNegotiation: { mode: { pin: '2026-07-28' } } })
 *   await client.connect(new StreamableHTTPClientTransport(new URL(url)))
 *
 * Without `versionNegotiation` the client defaults to `'legacy'` (the 2025
 * initialize handshake). With the pin, connect() probes `server/discover`,
 * fails loudly unless the server offers 2026-07-28, and then stamps the
 * per-request `_meta` envelope (protocolVersion, clientInfo,
 * clientCapabilities) and the MCP-Protocol-Version / Mcp-Method headers on
 * every request. Cancelling a call (RequestOptions.signal) aborts its HTTP
 * request, i.e. closes the response stream: that is 2026-07-28 cancellation.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import type { CallToolResult } from '@modelcontextprotocol/client'
import t from 'tap'
import { startFixture } from '../helpers/backend-process.ts'
import type { TeardownHost } from '../helpers/backend-process.ts'

const BACKEND = new URL('../fixtures/sdk-http-backend.ts', import.meta.url).pathname
const PROTOCOL_VERSION = '2026-07-28'
const LOG_LEVEL_META_KEY = 'io.modelcontextprotocol/logLevel'

async function connectClient(t: TeardownHost, url: string): Promise<Client> {
  const client = new Client(
    { name: 'fixtures-sdk-backend-test', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: PROTOCOL_VERSION } } },
  )
  await client.connect(new StreamableHTTPClientTransport(new URL(url)))
  t.teardown(() => client.close())
  return client
}

function firstText(result: CallToolResult): string | undefined {
  const block = result.content[0]
  return block?.type === 'text' ? block.text : undefined
}

t.test('pinned client negotiates 2026-07-28 and lists the fixture surface → names match', async (t) => {
  const fixture = await startFixture(t, BACKEND, ['--name', 'alpha'])
  t.match(fixture.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/)
  const client = await connectClient(t, fixture.url)
  t.equal(client.getNegotiatedProtocolVersion(), PROTOCOL_VERSION)
  t.equal(client.getServerVersion()?.name, 'alpha')
  const { tools } = await client.listTools()
  t.same(tools.map((tool) => tool.name).sort(), ['add', 'echo', 'fail', 'hang', 'progress'])
  const { prompts } = await client.listPrompts()
  t.same(prompts.map((prompt) => prompt.name), ['greet'])
  const { resources } = await client.listResources()
  t.same(resources.map((resource) => resource.uri), ['fixture://alpha/info'])
  const { resourceTemplates } = await client.listResourceTemplates()
  t.same(resourceTemplates.map((template) => template.uriTemplate), ['fixture://alpha/items/{id}'])
})

t.test('echo, add and fail → prefixed text, sum, isError', async (t) => {
  const fixture = await startFixture(t, BACKEND, ['--name', 'alpha'])
  const client = await connectClient(t, fixture.url)
  const echo = (await client.callTool({ name: 'echo', arguments: { text: 'hi' } })) as CallToolResult
  t.equal(firstText(echo), 'alpha:hi')
  const sum = (await client.callTool({ name: 'add', arguments: { a: 2, b: 3.5 } })) as CallToolResult
  t.equal(firstText(sum), '5.5')
  const fail = (await client.callTool({ name: 'fail', arguments: {} })) as CallToolResult
  t.equal(fail.isError, true)
})

t.test('prompt, resource and template reads → carry the backend name', async (t) => {
  const fixture = await startFixture(t, BACKEND, ['--name', 'beta'])
  const client = await connectClient(t, fixture.url)
  const prompt = await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } })
  t.match(prompt.messages[0]?.content, { type: 'text', text: 'beta says hello to Ada' })
  const info = await client.readResource({ uri: 'fixture://beta/info' })
  t.match(info.contents[0], { uri: 'fixture://beta/info', text: 'backend beta' })
  const item = await client.readResource({ uri: 'fixture://beta/items/7' })
  t.match(item.contents[0], { uri: 'fixture://beta/items/7', text: 'beta item 7' })
})

t.test('two backends side by side → each answers with its own name', async (t) => {
  const [alpha, beta] = await Promise.all([
    startFixture(t, BACKEND, ['--name', 'alpha']),
    startFixture(t, BACKEND, ['--name', 'beta']),
  ])
  t.not(alpha.url, beta.url)
  const [alphaClient, betaClient] = await Promise.all([connectClient(t, alpha.url), connectClient(t, beta.url)])
  const args = { name: 'echo', arguments: { text: 'x' } }
  t.equal(firstText((await alphaClient.callTool(args)) as CallToolResult), 'alpha:x')
  t.equal(firstText((await betaClient.callTool(args)) as CallToolResult), 'beta:x')
})

t.test('progress with a progressToken → notifications arrive before the result', async (t) => {
  const fixture = await startFixture(t, BACKEND, ['--name', 'alpha'])
  const client = await connectClient(t, fixture.url)
  const seen: string[] = []
  client.setNotificationHandler('notifications/message', (notification) => {
    seen.push(`log:${notification.params.level}`)
  })
  const result = (await client.callTool(
    { name: 'progress', arguments: { steps: 3, delayMs: 10 }, _meta: { [LOG_LEVEL_META_KEY]: 'debug' } },
    { onprogress: (progress) => seen.push(`progress:${progress.progress}/${progress.total}`) },
  )) as CallToolResult
  seen.push(`result:${firstText(result)}`)
  t.same(seen, ['progress:1/3', 'progress:2/3', 'progress:3/3', 'log:info', 'result:done'])
})

t.test('progress without logLevel → no log notification', async (t) => {
  const fixture = await startFixture(t, BACKEND, ['--name', 'alpha'])
  const client = await connectClient(t, fixture.url)
  const logs: unknown[] = []
  client.setNotificationHandler('notifications/message', (notification) => {
    logs.push(notification.params)
  })
  const result = (await client.callTool({ name: 'progress', arguments: { steps: 1, delayMs: 0 } })) as CallToolResult
  t.equal(firstText(result), 'done')
  t.same(logs, [])
})

t.test('hang, then client abort → fixture reports started and aborted', async (t) => {
  const fixture = await startFixture(t, BACKEND, ['--name', 'alpha'])
  const client = await connectClient(t, fixture.url)
  const controller = new AbortController()
  const call = client.callTool({ name: 'hang', arguments: {} }, { signal: controller.signal })
  t.same(await fixture.waitForEvent('started'), { event: 'started', tool: 'hang' })
  controller.abort()
  await t.rejects(call)
  t.same(await fixture.waitForEvent('aborted'), { event: 'aborted', tool: 'hang' })
})

t.test('teardown → the child process has exited', async (t) => {
  let child: Awaited<ReturnType<typeof startFixture>>['child'] | undefined
  await t.test('inner', async (t) => {
    child = (await startFixture(t, BACKEND, ['--name', 'gamma'])).child
  })
  t.ok(child !== undefined && (child.exitCode !== null || child.signalCode !== null))
})

t.test('unknown argument → startFixture rejects with the child stderr', async (t) => {
  await t.rejects(startFixture(t, BACKEND, ['--bogus']), /exited \(code 1/)
})
