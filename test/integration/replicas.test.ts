// Three gateway processes behind a real nginx (round robin, no affinity) sharing a real Redis
// (README "Running N replicas"): any replica serves any request. Through the load balancer: modern
// lists and calls (an MRTR retry on another replica, its replay refused on a third; a retry of a
// call bridged to a legacy backend relayed to the replica holding it), a v1 SDK
// session doing elicitation against a modern and a legacy backend with its answers landing on
// other replicas than the waiting call, a subscription made via one replica delivering
// resources/updated on the GET stream held by another, and DELETE seen by every replica. nginx
// names the replica of each response (X-Replica), so where requests landed is checked, not hoped.
import t from 'tap'
import type { Test } from 'tap'
import { Agent, fetch as undiciFetch, request } from 'undici'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { startFixture } from '../helpers/backend-process.ts'
import { createRawClient, readSseEvents, type SseEvent } from '../helpers/mcp-client.ts'
import { legacyRpc, openRawSession, sessionHeaders } from '../helpers/legacy-client.ts'
import { replicaTestsMissing, startReplicas } from '../helpers/replicas.ts'

const BACKEND = new URL('../fixtures/sdk-http-backend.ts', import.meta.url).pathname
const LEGACY_FIXTURE = new URL('../fixtures/stdio-legacy.ts', import.meta.url).pathname
const missing = replicaTestsMissing()

if (missing !== undefined) {
  t.plan(0, missing)
} else {
  const alpha = await startFixture(t, BACKEND, ['--name', 'alpha', '--extras'])
  const { gateways, lb, addresses } = await startReplicas(t, {
    backends: [
      { name: 'a', transport: 'http', url: alpha.url, namespace: 'a' },
      { name: 'lg', transport: 'stdio', command: process.execPath, args: [LEGACY_FIXTURE], namespace: 'lg' },
    ],
  })
  await Promise.all(gateways.map((gw) => gw.waitForLine(/"backend":"lg".*"backend up"|"backend up".*"backend":"lg"/)))
  // Each replica's hub holds one list-change listen on alpha.
  await alpha.waitForEvent('listen-opened', (event) => event.listeners === 3)
  const raw = createRawClient(t, lb.url)
  const agent = new Agent()
  t.teardown(() => agent.destroy())

  const gatewayAt = (replica: unknown) => gateways[addresses.indexOf(String(replica))]

  t.test('modern: lists and calls served by every replica; an MRTR retry on another replica, its replay refused', async (t) => {
    const listed = await raw.rpc('tools/list')
    t.ok(listed.json.result.tools.some((tool: { name: string }) => tool.name === 'lg__ask-name'), 'both backends listed')
    const served = new Set<string>()
    for (let i = 0; i < 3; i++) {
      const called = await raw.rpc('tools/call', { name: 'a__echo', arguments: { text: `n${i}` } })
      t.match(called.json.result, { content: [{ text: `alpha:n${i}` }] })
      served.add(String(called.headers['x-replica']))
    }
    t.equal(served.size, 3, 'three calls, three replicas (round robin)')
    const asker = { meta: { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } } }
    const first = await raw.rpc('tools/call', { name: 'a__ask-name', arguments: {} }, asker)
    const { requestState } = first.json.result
    t.equal(first.json.result.resultType, 'input_required')
    const retry = { name: 'a__ask-name', arguments: {}, requestState, inputResponses: { user_name: { action: 'accept', content: { name: 'Ada' } } } }
    const second = await raw.rpc('tools/call', retry, asker)
    t.not(second.headers['x-replica'], first.headers['x-replica'], 'the retry landed on another replica')
    t.match(second.json.result.content[0].text, /Hello, Ada!/)
    const replay = await raw.rpc('tools/call', retry, asker)
    t.not(replay.headers['x-replica'], second.headers['x-replica'])
    t.match(replay.json.error, { code: -32602, message: /already used/ }, 'single use across replicas (MRTR-9)')
  })

  t.test('modern client, bridged legacy backend: the MRTR retry on another replica reaches the replica holding the call', async (t) => {
    const asker = { meta: { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } } }
    const first = await raw.rpc('tools/call', { name: 'lg__ask-name', arguments: {} }, asker)
    t.match(first.json.result, { resultType: 'input_required', inputRequests: { 'input-1': { method: 'elicitation/create' } } })
    const retry = { name: 'lg__ask-name', arguments: {}, requestState: first.json.result.requestState, inputResponses: { 'input-1': { action: 'accept', content: { name: 'Ada' } } } }
    const second = await raw.rpc('tools/call', retry, asker)
    t.not(second.headers['x-replica'], first.headers['x-replica'], 'the retry landed on another replica')
    t.match(second.json.result, { content: [{ text: 'hello Ada' }] }, 'the held call completed with the answer')
    const replay = await raw.rpc('tools/call', retry, asker)
    t.match(replay.json.error, { code: -32602 }, 'the round is over: its state is refused wherever it lands')
  })

  for (const [backend, tool, answer] of [['modern', 'a__ask-name', /Hello, Ada!/], ['legacy (bridged)', 'lg__ask-name', /hello Ada/]] as const) {
    t.test(`v1 SDK session: elicitation against a ${backend} backend, the answer landing on another replica`, async (t) => {
      const { client, landed, settled } = await recordedV1(t, lb.url)
      client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name: 'Ada' } }))
      const result = await client.callTool({ name: tool, arguments: {} })
      t.match((result.content as Array<{ text: string }>)[0].text, answer)
      await settled()
      const call = landed.find((r) => r.kind === 'tools/call')!
      const response = landed.find((r) => r.kind === 'response')!
      t.ok(call && response, 'a call and an answer were sent')
      t.not(response.replica, call.replica, 'the answer landed on another replica than the waiting call')
      const posts = landed.filter((r) => r.method === 'POST')
      t.ok(posts.every((r, i) => i === 0 || r.replica !== posts[i - 1].replica), 'consecutive requests of the session on different replicas')
      t.equal(new Set(landed.map((r) => r.replica)).size, 3, 'the session used all three replicas')
    })
  }

  t.test('subscription via one replica → resources/updated on the GET stream held by another', async (t) => {
    const { sessionId } = await openRawSession(raw)
    const get = await openGet(lb.url, agent, sessionId)
    await gatewayAt(get.replica).waitForLine(/legacy session stream opened/)
    const uri = 'fixture://alpha/docs'
    const subscribed = await legacyRpc(raw, sessionId, 'resources/subscribe', { uri })
    t.same(subscribed.json.result, {})
    t.not(subscribed.headers['x-replica'], get.replica, 'subscribed through another replica')
    // The stream's replica learned of it (pub/sub) and opened the upstream listen for the URI.
    await alpha.waitForEvent('listen-opened', (event) => event.listeners === 4)
    await legacyRpc(raw, sessionId, 'tools/call', { name: 'a__touch-resource', arguments: { uri } })
    t.same(await next(get.events), { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri } })
    get.close()
    await alpha.waitForEvent('listen-closed', (event) => event.listeners === 3)
  })

  t.test('DELETE through one replica: every replica refuses the session (404); its GET stream elsewhere ends', async (t) => {
    const { sessionId } = await openRawSession(raw)
    const get = await openGet(lb.url, agent, sessionId)
    await gatewayAt(get.replica).waitForLine(/legacy session stream opened/)
    const deleted = await raw.send('DELETE', '/mcp', { headers: sessionHeaders(sessionId) })
    t.equal(deleted.status, 204)
    const rest: SseEvent[] = []
    for await (const event of get.events) rest.push(event)
    t.same(rest, [], 'the GET stream ended')
    for (const gateway of gateways) {
      const direct = createRawClient(t, gateway.url)
      t.equal((await legacyRpc(direct, sessionId, 'ping')).status, 404, `replica ${new URL(gateway.url).host}: 404`)
    }
  })
}

interface Landed {
  method: string
  // The JSON-RPC method of a POST, "response" for an answer, else the HTTP method.
  kind: string
  replica: string
}

// A v1 SDK client whose every HTTP request is recorded with the replica that served it.
async function recordedV1(t: Test, url: string) {
  const agent = new Agent()
  const landed: Landed[] = []
  const answered: Array<Promise<unknown>> = []
  // Recorded when sent; the replica is filled in when the response's headers arrive. An answer's
  // 202 may come after the result it unblocked (on the call's own stream): `settled` waits for it.
  const fetch = async (input: string | URL, init?: RequestInit): Promise<Response> => {
    const method = init?.method ?? 'GET'
    const body = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined
    const record: Landed = { method, kind: method === 'POST' ? (body?.method ?? 'response') : method, replica: '' }
    landed.push(record)
    const responded = undiciFetch(input, { ...(init as object), dispatcher: agent }).then((response) => {
      record.replica = response.headers.get('x-replica') ?? ''
      return response
    })
    answered.push(responded)
    return (await responded) as unknown as Response
  }
  const client = new Client({ name: 'v1-replicas', version: '1.0.0' }, { capabilities: { elicitation: {} } })
  const transport = new StreamableHTTPClientTransport(new URL(url), { fetch })
  t.teardown(async () => {
    await transport.terminateSession().catch(() => undefined)
    await client.close()
    await agent.destroy()
  })
  await client.connect(transport)
  return { client, landed, settled: () => Promise.allSettled(answered) }
}

async function openGet(url: string, agent: Agent, sessionId: string) {
  const controller = new AbortController()
  const response = await request(url, {
    dispatcher: agent, method: 'GET', signal: controller.signal,
    headers: { accept: 'text/event-stream', ...sessionHeaders(sessionId) },
  })
  return { status: response.statusCode, replica: String(response.headers['x-replica']), events: readSseEvents(response.body), close: () => controller.abort() }
}

async function next(events: AsyncGenerator<SseEvent>): Promise<unknown> {
  const { value, done } = await events.next()
  if (done) throw new Error('the stream ended')
  return value.message
}
