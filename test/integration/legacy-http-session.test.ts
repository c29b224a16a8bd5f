// The legacy session toward a scripted 2025-11-25 peer on a real socket (LEGACY-C2..C6, CANCEL-10):
// session id echoed, 404 → one re-initialize and retry, the backend's ping answered, cancellation
// by POSTed notifications/cancelled, the GET stream feeding listen, DELETE on close.
// Every subtest starts its own peer and backend (torn down with it), so each one runs alone.
import { once, EventEmitter } from 'node:events'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import t, { type Test } from 'tap'
import type { JsonRpcNotification } from '../../src/protocol/jsonrpc.ts'
import type { Backend, UpstreamReply } from '../../src/upstream/backend.ts'
import { createHttpBackend } from '../../src/upstream/http/http-backend.ts'

interface Seen { httpMethod: string; session: string | undefined; version: string | undefined; body: Record<string, any> | undefined }

// The scripted peer: every request it received, in order, and a way to wait for one.
interface Peer {
  url: string
  seen: readonly Seen[]
  waitSeen(predicate: (entry: Seen) => boolean): Promise<Seen>
}

interface Session {
  peer: Peer
  backend: Backend
  // Closes the backend (idempotent: teardown closes it too when the subtest did not).
  close(): Promise<void>
  call(name: string, signal?: AbortSignal): Promise<UpstreamReply>
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body))
}

// Session ids are s1, s2 … in the order this peer hands them out; `expire` is refused on s1 only.
function answerPost(body: Record<string, any>, session: string | undefined, res: ServerResponse, nextSession: () => string): void {
  if (body.method === 'server/discover') return json(res, 400, { jsonrpc: '2.0', id: body.id, error: { code: -32000, message: 'Bad Request: Server not initialized' } })
  if (body.method === 'initialize') {
    const result = { protocolVersion: '2025-11-25', capabilities: { tools: { listChanged: true } }, serverInfo: { name: 'peer', version: '1' } }
    return json(res, 200, { jsonrpc: '2.0', id: body.id, result }, { 'mcp-session-id': nextSession() })
  }
  if (!('id' in body) || !('method' in body)) return void res.writeHead(202).end()
  if (body.params?.name === 'expire' && session === 's1') return json(res, 404, { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } })
  if (body.params?.name === 'slow') {
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    res.write('id: p0\ndata: \n\n') // priming event
    res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id: 'srv-1', method: 'ping' })}\n\n`)
    return
  }
  json(res, 200, { jsonrpc: '2.0', id: body.id, result: { content: [{ type: 'text', text: `ok in ${session}` }], meta: body.params?._meta ?? null } })
}

async function startPeer(t: Test): Promise<Peer> {
  const seen: Seen[] = []
  const events = new EventEmitter()
  let sessions = 0
  const nextSession = (): string => `s${++sessions}`
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    let text = ''
    for await (const chunk of req) text += chunk
    const entry: Seen = {
      httpMethod: req.method ?? '', session: req.headers['mcp-session-id'] as string | undefined,
      version: req.headers['mcp-protocol-version'] as string | undefined, body: text ? JSON.parse(text) : undefined,
    }
    seen.push(entry)
    events.emit('seen', entry)
    if (req.method === 'DELETE') return void res.writeHead(200).end()
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' })}\n\n`)
      return
    }
    answerPost(entry.body!, entry.session, res, nextSession)
  }
  const server = createServer((req, res) => void handle(req, res))
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => {
    server.closeAllConnections()
    server.close()
  })
  const waitSeen = (predicate: (entry: Seen) => boolean): Promise<Seen> => {
    const found = seen.find(predicate)
    if (found) return Promise.resolve(found)
    return new Promise((resolve) => {
      const listener = (entry: Seen): void => {
        if (!predicate(entry)) return
        events.off('seen', listener)
        resolve(entry)
      }
      events.on('seen', listener)
    })
  }
  const { port } = server.address() as { port: number }
  return { url: `http://127.0.0.1:${port}/mcp`, seen, waitSeen }
}

const silent = { debug() {}, info() {}, warn() {}, error() {} } as any

// A fresh peer and a started backend toward it; both are gone when the subtest ends.
async function startSession(t: Test): Promise<Session> {
  const peer = await startPeer(t)
  const backend = createHttpBackend(
    { name: 'peer', transport: 'http', url: peer.url, namespace: 'p', headers: {}, connections: 4, timeoutMs: 5_000 } as any,
    { logger: silent, clientInfo: { name: 'gw', version: '0' } },
  )
  let closing: Promise<void> | undefined
  const close = (): Promise<void> => (closing ??= backend.close())
  // Registered after the peer's: teardowns run last-in first-out, so the backend closes first.
  t.teardown(close)
  await backend.start()
  const call = (name: string, signal = new AbortController().signal): Promise<UpstreamReply> =>
    backend.request({ method: 'tools/call', params: { name, _meta: { 'io.modelcontextprotocol/protocolVersion': '2025-11-25', progressToken: 1 } }, signal })
  return { peer, backend, close, call }
}

t.test('400 to server/discover → initialize, initialized, status legacy', async (t) => {
  const { peer, backend } = await startSession(t)
  t.match(backend.status(), { era: 'legacy', up: true, protocolVersion: '2025-11-25' })
  t.same(backend.capabilities(), { tools: { listChanged: true } })
  const init = await peer.waitSeen((e) => e.body?.method === 'initialize')
  t.match(init.body!.params, { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'gw' } })
  t.match(await peer.waitSeen((e) => e.body?.method === 'notifications/initialized'), { session: 's1', version: '2025-11-25' })
})

t.test('a call → session headers, modern _meta keys stripped, progressToken kept', async (t) => {
  const { peer, call } = await startSession(t)
  const reply = await call('hello')
  t.match(reply, { ok: true, result: { content: [{ text: 'ok in s1' }], meta: { progressToken: 1 } } })
  t.notOk('io.modelcontextprotocol/protocolVersion' in (reply.ok ? (reply.result.meta as object) : {}))
  t.match(await peer.waitSeen((e) => e.body?.params?.name === 'hello'), { session: 's1', version: '2025-11-25' })
})

t.test('404 on a session request → re-initialize once, retry on the new session (LEGACY-C2)', async (t) => {
  const { peer, call } = await startSession(t)
  const reply = await call('expire')
  t.match(reply, { ok: true, result: { content: [{ text: 'ok in s2' }] } })
  t.equal(peer.seen.filter((e) => e.body?.method === 'initialize').length, 2)
})

t.test('backend ping on the POST stream answered; abort → POSTed notifications/cancelled (CANCEL-10)', async (t) => {
  const { peer, call } = await startSession(t)
  const controller = new AbortController()
  const pending = call('slow', controller.signal)
  const sent = await peer.waitSeen((e) => e.body?.params?.name === 'slow')
  t.match(await peer.waitSeen((e) => e.body?.id === 'srv-1' && 'result' in e.body), { session: 's1', body: { result: {} } }, 'ping → {}')
  controller.abort()
  await pending.then(() => t.fail('resolved after abort'), (err: unknown) => t.match(err, { reason: 'aborted' }, 'rejects as aborted'))
  const cancel = await peer.waitSeen((e) => e.body?.method === 'notifications/cancelled')
  t.match(cancel, { session: 's1', body: { params: { requestId: sent.body!.id, reason: String } } })
})

t.test('listen → GET stream with the session id, list_changed delivered (LEGACY-C4)', async (t) => {
  const { peer, backend } = await startSession(t)
  const got = new Promise<JsonRpcNotification>((resolve) => {
    const close = backend.listen!({ toolsListChanged: true }, { onNotification: (n) => { resolve(n); close() }, onClose() {} })
  })
  t.equal((await got).method, 'notifications/tools/list_changed')
  t.match(await peer.waitSeen((e) => e.httpMethod === 'GET'), { session: 's1' })
})

t.test('close → DELETE the session (LEGACY-C3)', async (t) => {
  const { peer, close } = await startSession(t)
  await close()
  t.match(await peer.waitSeen((e) => e.httpMethod === 'DELETE'), { session: 's1' })
})
