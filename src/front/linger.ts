// A refusal sent while the request body is still unread (413 on the declared size, 413 past
// maxBodyBytes while reading, 408, any guard's refusal of a POST): the response says
// `Connection: close`, and once it is out the connection lingers briefly (RFC 9112 §9.6): reading
// goes on, discarding, for at most LINGER_BYTES or LINGER_MS, then the socket is destroyed. So a
// client declaring 16 GiB costs a few MiB, never the whole body, and still reads its refusal
// (destroying at once would reset the connection under the response it has not read yet).
import type { ServerResponse } from 'node:http'
import type { Socket } from 'node:net'

export const LINGER_MS = 2_000

// The request's body has not been read to its end and node would read the rest to reuse the
// connection: unbounded when the body is chunked or declared over maxBodyBytes. A small declared
// body left unread (a 401 before the body was looked at) is read by node and the connection kept.
export function mustCloseUnread(res: ServerResponse, maxBodyBytes: number): boolean {
  const req = res.req
  if (req.complete) return false
  const declared = req.headers['content-length']
  return declared === undefined || !(Number(declared) <= maxBodyBytes)
}

// Call before the response is sent.
export function closeAfterResponse(res: ServerResponse, lingerBytes: number): void {
  res.setHeader('connection', 'close')
  res.once('finish', () => linger(res.socket, lingerBytes))
}

function linger(socket: Socket | null, lingerBytes: number): void {
  if (socket === null || socket.destroyed) return
  // node ends the write side (FIN after the response) and would destroy the socket as soon as the
  // response is flushed; the linger takes over that destroy.
  socket.removeListener('finish', socket.destroy)
  let read = 0
  const stop = (): void => void socket.destroy()
  const timer = setTimeout(stop, LINGER_MS).unref()
  socket.on('data', (chunk: Buffer) => {
    read += chunk.length
    if (read > lingerBytes) stop()
  })
  socket.once('end', stop)
  socket.once('close', () => clearTimeout(timer))
}
