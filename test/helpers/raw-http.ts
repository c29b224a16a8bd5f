// Raw HTTP/1.1 over net sockets, for what undici will not send (malformed requests, two Host
// headers, absolute-form targets, bodies that never end) and for counting what the gateway reads.
// Every socket is destroyed at teardown. Loopback only; the source address is chosen per socket.
import { connect, type Socket } from 'node:net'
import { once } from 'node:events'
import type { TeardownHost } from './backend-process.ts'

export interface RawResponse {
  status: number
  headers: Record<string, string>
  body: string
  // The body parsed as JSON, or undefined.
  json: any
  // The whole text received, for a test that must show what it got.
  text: string
}

export interface RawConnection {
  socket: Socket
  // Bytes received so far.
  received(): Buffer
  // Resolves when the peer closed (or reset) the connection.
  closed: Promise<void>
}

export async function openRaw(t: TeardownHost, port: number, localAddress = '127.0.0.1'): Promise<RawConnection> {
  const socket = connect({ host: '127.0.0.1', port, localAddress })
  t.teardown(() => void socket.destroy())
  const chunks: Buffer[] = []
  socket.on('data', (chunk: Buffer) => void chunks.push(chunk))
  socket.on('error', () => {}) // a reset is an expected end here; the test reads what arrived
  // Not events.once: it would reject on the socket's 'error' (EPIPE, ECONNRESET), which is a close here.
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()))
  await once(socket, 'connect')
  return { socket, received: () => Buffer.concat(chunks), closed }
}

// The first response in `data` (Content-Length delimited, or up to the end); undefined when none.
export function parseResponse(data: Buffer): RawResponse | undefined {
  const text = data.toString('latin1')
  const headEnd = text.indexOf('\r\n\r\n')
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(text)
  if (headEnd === -1 || status === null) return undefined
  const headers: Record<string, string> = {}
  for (const line of text.slice(0, headEnd).split('\r\n').slice(1)) {
    const colon = line.indexOf(':')
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  const length = headers['content-length'] === undefined ? undefined : Number(headers['content-length'])
  const rest = data.subarray(Buffer.byteLength(text.slice(0, headEnd + 4), 'latin1'))
  const body = (length === undefined ? rest : rest.subarray(0, length)).toString('utf8')
  let json: unknown
  try {
    json = JSON.parse(body)
  } catch {
    json = undefined
  }
  return { status: Number(status[1]), headers, body, json, text }
}

// Sends `request` (bytes as given) on a fresh connection and returns the first response, read
// until the gateway closes the connection or the response is complete.
export async function rawRequest(t: TeardownHost, port: number, request: string | Buffer, localAddress?: string): Promise<RawResponse | undefined> {
  const conn = await openRaw(t, port, localAddress)
  conn.socket.write(request)
  const complete = new Promise<void>((resolve) => {
    const check = (): void => {
      const parsed = parseResponse(conn.received())
      if (parsed && Buffer.byteLength(parsed.body) >= Number(parsed.headers['content-length'] ?? Infinity)) resolve()
    }
    conn.socket.on('data', check)
  })
  await Promise.race([complete, conn.closed])
  conn.socket.destroy()
  return parseResponse(conn.received())
}

// A POST request head for the MCP endpoint, with the given extra header lines.
export function postHead(extra: string[] = [], target = '/mcp'): string {
  return [`POST ${target} HTTP/1.1`, 'Host: 127.0.0.1', 'Content-Type: application/json', 'Accept: application/json, text/event-stream', ...extra, '', ''].join('\r\n')
}
