// subscriptions/listen through the gateway (SUB-*, G9) on real sockets: two SDK v2 backends as child
// processes (namespaces `a` and `b`) behind one gateway, listen streams read raw with undici (comment
// lines included). The fixtures report every upstream listen they serve ("listen-opened" /
// "listen-closed"), so the tests wait on events, never on time.
import t, { type Test } from 'tap'
import { Agent } from 'undici'
import { stopChild, startFixture } from '../helpers/backend-process.ts'
import { startGateway, type StartedGateway } from '../helpers/start-gateway.ts'
import { buildRpc, createRawClient, type JsonValue } from '../helpers/mcp-client.ts'

const BACKEND = new URL('../fixtures/sdk-http-backend.ts', import.meta.url).pathname
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId'
const KEEP_ALIVE_MS = 100

// A FIFO whose reads wait for the next item; rejected once the stream has ended.
class Inbox<T> {
  readonly #items: T[] = []
  readonly #waiters: Array<{ resolve: (item: T) => void; reject: (err: Error) => void }> = []
  #ended: Error | undefined

  push(item: T): void {
    const waiter = this.#waiters.shift()
    if (waiter) waiter.resolve(item)
    else this.#items.push(item)
  }

  end(err: Error): void {
    this.#ended = err
    for (const waiter of this.#waiters.splice(0)) waiter.reject(err)
  }

  next(): Promise<T> {
    if (this.#items.length > 0) return Promise.resolve(this.#items.shift() as T)
    if (this.#ended) return Promise.reject(this.#ended)
    return new Promise((resolve, reject) => this.#waiters.push({ resolve, reject }))
  }
}

interface ListenStream {
  status: number
  contentType: string | undefined
  // The next JSON-RPC message on the stream.
  next(): Promise<any>
  // The next SSE comment line (keep-alive).
  nextComment(): Promise<string>
  // Settles when the gateway ends the stream.
  ended: Promise<void>
  close(): void
}

const agent = new Agent({ keepAliveTimeout: 1_000 })
t.teardown(() => agent.destroy())

async function pump(body: AsyncIterable<Buffer>, messages: Inbox<any>, comments: Inbox<string>): Promise<void> {
  const decoder = new TextDecoder()
  let buffer = ''
  let data: string[] = []
  try {
    for await (const chunk of body) {
      buffer += decoder.decode(chunk, { stream: true })
      let newline: number
      while ((newline = buffer.indexOf('\n')) !== -1) {
        const line = buffer.slice(0, newline).replace(/\r$/, '')
        buffer = buffer.slice(newline + 1)
        if (line.startsWith(':')) comments.push(line)
        else if (line.startsWith('data:')) data.push(line.slice(5).trimStart())
        else if (line === '' && data.length > 0) {
          messages.push(JSON.parse(data.join('\n')))
          data = []
        }
      }
    }
  } finally {
    messages.end(new Error('listen stream ended'))
    comments.end(new Error('listen stream ended'))
  }
}

async function openListen(t: Test, gateway: StartedGateway, id: string | number, notifications: JsonValue): Promise<ListenStream> {
  const controller = new AbortController()
  const { body, headers } = buildRpc('subscriptions/listen', { notifications }, { id })
  const response = await agent.request({
    origin: gateway.origin, path: '/mcp', method: 'POST', headers, body: JSON.stringify(body), signal: controller.signal,
  })
  const messages = new Inbox<any>()
  const comments = new Inbox<string>()
  const ended = pump(response.body, messages, comments).catch(() => undefined)
  const close = (): void => controller.abort()
  t.teardown(close)
  const contentType = response.headers['content-type'] as string | undefined
  return { status: response.statusCode, contentType, next: () => messages.next(), nextComment: () => comments.next(), ended, close }
}

const [alpha, beta] = await Promise.all([
  startFixture(t, BACKEND, ['--name', 'alpha', '--extras', '--ttl-ms', '60000']),
  startFixture(t, BACKEND, ['--name', 'beta', '--extras']),
])
const gateway = await startGateway(t, {
  keepAliveMs: KEEP_ALIVE_MS,
  backends: [
    { name: 'a', transport: 'http', url: alpha.url, namespace: 'a' },
    { name: 'b', transport: 'http', url: beta.url, namespace: 'b' },
  ],
})
const raw = createRawClient(t, gateway.url)
// The gateway's own list-change listens, one per backend, are live before any test triggers a change.
await Promise.all([alpha.waitForEvent('listen-opened'), beta.waitForEvent('listen-opened')])

let nextId = 0

async function callTool(name: string, args: JsonValue = {}): Promise<any> {
  const reply = await raw.rpc('tools/call', { name, arguments: args }, { id: `call-${++nextId}` })
  if (reply.status !== 200 || reply.json?.result === undefined) throw new Error(`${name}: HTTP ${reply.status} ${reply.text}`)
  return reply.json.result
}

async function expectAck(t: Test, stream: ListenStream, id: string | number, honoured: JsonValue): Promise<void> {
  t.equal(stream.status, 200)
  t.match(stream.contentType, /^text\/event-stream/)
  const ack = await stream.next()
  t.equal(ack.method, 'notifications/subscriptions/acknowledged', 'the acknowledgment comes first')
  t.equal(ack.params._meta[SUBSCRIPTION_ID], id, `tagged with the listen id ${JSON.stringify(id)}`)
  t.same(ack.params.notifications, honoured, 'the honoured filter')
}

function expectTagged(t: Test, message: any, method: string, id: string | number): void {
  t.equal(message.method, method)
  t.equal(message.params._meta[SUBSCRIPTION_ID], id, `${method} tagged ${JSON.stringify(id)}`)
  t.equal(typeof message.params._meta[SUBSCRIPTION_ID], typeof id, 'same JSON type as the listen id')
}

t.test('tools list_changed from backend a and from backend b → on numeric and string listen ids', async (t) => {
  const numeric = await openListen(t, gateway, 7, { toolsListChanged: true })
  const text = await openListen(t, gateway, '7', { toolsListChanged: true })
  await expectAck(t, numeric, 7, { toolsListChanged: true })
  await expectAck(t, text, '7', { toolsListChanged: true })
  for (const backend of ['a', 'b']) {
    await callTool(`${backend}__notify-tools-changed`)
    expectTagged(t, await numeric.next(), 'notifications/tools/list_changed', 7)
    expectTagged(t, await text.next(), 'notifications/tools/list_changed', '7')
  }
})

t.test('a prompts-only listen → prompts list_changed, never tools list_changed (SUB-2)', async (t) => {
  const prompts = await openListen(t, gateway, 'prompts-only', { promptsListChanged: true })
  const tools = await openListen(t, gateway, 'tools-only', { toolsListChanged: true })
  await expectAck(t, prompts, 'prompts-only', { promptsListChanged: true })
  await expectAck(t, tools, 'tools-only', { toolsListChanged: true })
  await callTool('b__notify-tools-changed')
  await callTool('a__notify-prompts-changed')
  await callTool('a__notify-tools-changed')
  expectTagged(t, await tools.next(), 'notifications/tools/list_changed', 'tools-only')
  expectTagged(t, await tools.next(), 'notifications/tools/list_changed', 'tools-only')
  // Both tools changes have passed the gateway; a tools change wrongly sent to the prompts stream
  // would come before this second prompts change.
  await callTool('b__notify-prompts-changed')
  expectTagged(t, await prompts.next(), 'notifications/prompts/list_changed', 'prompts-only')
  expectTagged(t, await prompts.next(), 'notifications/prompts/list_changed', 'prompts-only')
})

t.test('an idle listen stream → keep-alive comment lines', async (t) => {
  const stream = await openListen(t, gateway, 'idle', { toolsListChanged: true })
  await expectAck(t, stream, 'idle', { toolsListChanged: true })
  const first = await stream.nextComment()
  const second = await stream.nextComment()
  t.match(first, /^:/, 'an SSE comment line')
  t.match(second, /^:/, 'and another one')
})

t.test('unknown filter kinds and unroutable URIs → left out of the acknowledgment (SUB-3)', async (t) => {
  const stream = await openListen(t, gateway, 'partial', { toolsListChanged: true, resourceSubscriptions: ['nowhere://x'], bogus: true })
  await expectAck(t, stream, 'partial', { toolsListChanged: true })
})

// Upstream listen streams a backend serves right now (the gateway's list listen included).
async function listenCount(backend: 'a' | 'b'): Promise<number> {
  return Number((await callTool(`${backend}__listen-count`)).content[0].text)
}

function updated(message: any): [string, string] {
  return [message.method, message.params.uri]
}

function update(uri: string): [string, string] {
  return ['notifications/resources/updated', uri]
}

t.test('resources/updated → only to the clients subscribed to that URI, one upstream listen per (backend, URI)', async (t) => {
  const [baseA, baseB] = [await listenCount('a'), await listenCount('b')]
  const x = await openListen(t, gateway, 'x', { resourceSubscriptions: ['fixture://alpha/docs', 'nowhere://x', 'fixture://beta/changelog'] })
  await expectAck(t, x, 'x', { resourceSubscriptions: ['fixture://alpha/docs', 'fixture://beta/changelog'] })
  const y = await openListen(t, gateway, 'y', { resourceSubscriptions: ['fixture://alpha/info'] })
  await expectAck(t, y, 'y', { resourceSubscriptions: ['fixture://alpha/info'] })
  const z = await openListen(t, gateway, 'z', { resourceSubscriptions: ['fixture://alpha/docs'] })
  await expectAck(t, z, 'z', { resourceSubscriptions: ['fixture://alpha/docs'] })
  // alpha/docs, alpha/info and beta/changelog: three upstream listens, live before anything is touched.
  await Promise.all([alpha.waitForEvent('listen-opened'), alpha.waitForEvent('listen-opened'), beta.waitForEvent('listen-opened')])

  await callTool('a__touch-resource', { uri: 'fixture://alpha/info' })
  await callTool('a__touch-resource', { uri: 'fixture://alpha/docs' })
  await callTool('b__touch-resource', { uri: 'fixture://beta/changelog' })
  t.same(updated(await x.next()), update('fixture://alpha/docs'), 'x: alpha/docs first (alpha/info was not for x)')
  t.same(updated(await x.next()), update('fixture://beta/changelog'), 'x: beta/changelog')
  t.same(updated(await y.next()), update('fixture://alpha/info'), 'y: alpha/info')
  const forZ = await z.next()
  t.same(updated(forZ), update('fixture://alpha/docs'), 'z: alpha/docs')
  t.equal(forZ.params._meta[SUBSCRIPTION_ID], 'z', 'tagged with z\'s own id')
  // Every upstream listen has delivered, so every one the gateway opened is counted now.
  t.equal(await listenCount('a'), baseA + 2, 'x and z share one alpha/docs listen')
  t.equal(await listenCount('b'), baseB + 1)

  x.close()
  await beta.waitForEvent('listen-closed')
  await callTool('a__touch-resource', { uri: 'fixture://alpha/docs' })
  t.same(updated(await z.next()), update('fixture://alpha/docs'), 'x left; z still gets alpha/docs')
  z.close()
  await alpha.waitForEvent('listen-closed')
  t.equal(await listenCount('a'), baseA + 1, 'the last subscriber left → the alpha/docs listen closed')
  y.close()
  await alpha.waitForEvent('listen-closed')
  t.equal(await listenCount('a'), baseA, 'and alpha/info with y')
})

t.test('a backend\'s tools list_changed → the gateway refreshes its cached tools/list', async (t) => {
  const listNames = async (): Promise<string[]> => {
    const names: string[] = []
    let cursor: string | undefined
    do {
      const reply = await raw.rpc('tools/list', cursor === undefined ? {} : { cursor }, { id: `list-${++nextId}` })
      names.push(...reply.json.result.tools.map((tool: { name: string }) => tool.name))
      cursor = reply.json.result.nextCursor
    } while (cursor !== undefined)
    return names
  }
  t.notOk((await listNames()).includes('a__fresh'), 'not there yet')
  // Added without a notification: backend a's list is cached for 60 s, so the gateway keeps it.
  await callTool('a__notify-tools-changed', { tool: 'fresh', silent: true })
  t.notOk((await listNames()).includes('a__fresh'), 'the cached list still holds (no list_changed yet)')
  const stream = await openListen(t, gateway, 'refresh', { toolsListChanged: true })
  await expectAck(t, stream, 'refresh', { toolsListChanged: true })
  await callTool('a__notify-tools-changed')
  expectTagged(t, await stream.next(), 'notifications/tools/list_changed', 'refresh')
  t.ok((await listNames()).includes('a__fresh'), 'listed after the list_changed')
  t.match(await callTool('a__fresh'), { content: [{ type: 'text', text: 'alpha:fresh' }] })
})

t.test('listen streams on a backend with connections: 1 → all honoured, ordinary calls never starved', async (t) => {
  const solo = await startFixture(t, BACKEND, ['--name', 'solo', '--extras'])
  // One pooled connection for calls; listens (list changes and two resources) use their own.
  const own = await startGateway(t, { backends: [{ name: 's', transport: 'http', url: solo.url, namespace: 's', connections: 1 }] })
  const first = await openListen(t, own, 1, { resourceSubscriptions: ['fixture://solo/docs', 'fixture://solo/info'] })
  await expectAck(t, first, 1, { resourceSubscriptions: ['fixture://solo/docs', 'fixture://solo/info'] })
  const shared = await openListen(t, own, 2, { resourceSubscriptions: ['fixture://solo/docs'] })
  await expectAck(t, shared, 2, { resourceSubscriptions: ['fixture://solo/docs'] })
  // The list-change listen and one per subscribed URI (solo/docs is shared).
  await Promise.all([solo.waitForEvent('listen-opened'), solo.waitForEvent('listen-opened'), solo.waitForEvent('listen-opened')])
  const ownRaw = createRawClient(t, own.url)
  const echo = await ownRaw.rpc('tools/call', { name: 's__echo', arguments: { text: 'still' } }, { id: 'echo' })
  t.match(echo.json, { id: 'echo', result: { content: [{ text: 'solo:still' }] } }, 'an ordinary call gets the connection')
})

// G9: a change made while the upstream stream was down would be lost; the gateway says "changed".
t.test('upstream listen drops and comes back → the client hears list_changed for the gap', async (t) => {
  const first = await startFixture(t, BACKEND, ['--name', 'phoenix'])
  const port = new URL(first.url).port
  const own = await startGateway(t, { backends: [{ name: 'p', transport: 'http', url: first.url, namespace: 'p' }] })
  await first.waitForEvent('listen-opened')
  const stream = await openListen(t, own, 'phx', { toolsListChanged: true })
  await expectAck(t, stream, 'phx', { toolsListChanged: true })
  await stopChild(first.child)
  const second = await startFixture(t, BACKEND, ['--name', 'phoenix', '--port', port])
  await second.waitForEvent('listen-opened')
  expectTagged(t, await stream.next(), 'notifications/tools/list_changed', 'phx')
})

t.test('app.close() with an open listen stream → notifications/cancelled, then the closing result, promptly', async (t) => {
  const solo = await startFixture(t, BACKEND, ['--name', 'solo'])
  const own = await startGateway(t, { backends: [{ name: 's', transport: 'http', url: solo.url, namespace: 's' }] })
  await solo.waitForEvent('listen-opened')
  const stream = await openListen(t, own, 'bye', { toolsListChanged: true })
  await expectAck(t, stream, 'bye', { toolsListChanged: true })
  // The clock is read only for the close itself: ending the stream is proven by the events below,
  // but a connection left behind would still hold close() until Node's keep-alive or headers
  // timeout (a minute or more). The bound is far below that and generous for a loaded machine.
  const started = performance.now()
  const closing = own.app.close()
  const cancelled = await stream.next()
  expectTagged(t, cancelled, 'notifications/cancelled', 'bye')
  t.equal(cancelled.params.requestId, 'bye', 'names the listen request')
  const result = await stream.next()
  t.equal(result.id, 'bye', 'the response to the listen request')
  t.match(result.result, { resultType: 'complete', _meta: { [SUBSCRIPTION_ID]: 'bye' } })
  await stream.ended
  await closing
  const elapsed = performance.now() - started
  t.ok(elapsed < 10_000, `close completed in ${elapsed.toFixed(0)} ms, not at a connection timeout`)
  await solo.waitForEvent('listen-closed')
})
