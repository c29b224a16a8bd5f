// A node:http2 client session to the gateway (h2 over TLS, or h2c with prior knowledge), closed at
// teardown, and one MCP request on a stream of it: the status, the headers, and the body (SSE
// events decoded) as they arrive. Many requests share the session: one connection, many streams.
import { connect, type ClientHttp2Session, type ClientHttp2Stream, type IncomingHttpHeaders } from 'node:http2'
import { once } from 'node:events'
import type { TeardownHost } from './backend-process.ts'
import { buildRpc, readSseEvents, type JsonValue, type RpcOptions, type SseEvent } from './mcp-client.ts'

export async function connectH2(t: TeardownHost, origin: string, ca?: string): Promise<ClientHttp2Session> {
  const session = connect(origin, ca === undefined ? {} : { ca })
  t.teardown(() => {
    if (!session.closed) session.destroy()
  })
  await once(session, 'connect')
  return session
}

export interface H2Reply {
  stream: ClientHttp2Stream
  status: number
  headers: IncomingHttpHeaders
}

// One request; resolves when the response headers arrive (the body is left on `stream`).
export async function requestH2(session: ClientHttp2Session, headers: Record<string, string>, body?: string): Promise<H2Reply> {
  const stream = session.request({ ':method': 'POST', ':path': '/mcp', ...headers })
  stream.end(body)
  const [response] = (await once(stream, 'response')) as [IncomingHttpHeaders]
  return { stream, status: Number(response[':status']), headers: response }
}

export function rpcH2(session: ClientHttp2Session, method: string, params: JsonValue = {}, options: RpcOptions = {}): Promise<H2Reply> {
  const { body, headers } = buildRpc(method, params, options)
  return requestH2(session, headers, JSON.stringify(body))
}

export async function readBody(reply: H2Reply): Promise<string> {
  let text = ''
  for await (const chunk of reply.stream) text += String(chunk)
  return text
}

export async function readEvents(reply: H2Reply): Promise<SseEvent[]> {
  const events: SseEvent[] = []
  for await (const event of readSseEvents(reply.stream)) events.push(event)
  return events
}
