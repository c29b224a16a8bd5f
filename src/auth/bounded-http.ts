// Requests to authorization servers (JWKS, introspection, token endpoints): an injected undici
// dispatcher, a deadline, a cap on the reply size, no redirects followed. A misbehaving or hostile
// endpoint can neither hang a request nor exhaust memory.
import type { Dispatcher } from 'undici'

export const DEFAULT_AUTH_TIMEOUT_MS = 5_000
export const DEFAULT_MAX_AUTH_REPLY_BYTES = 512 * 1024

export interface BoundedRequest {
  url: string
  method: 'GET' | 'POST'
  headers?: Record<string, string>
  body?: string
  timeoutMs?: number
  maxBytes?: number
  // An outer signal (jose passes its own timeout signal).
  signal?: AbortSignal
}

export interface BoundedReply {
  status: number
  contentType: string | undefined
  text: string
}

export class AuthHttpError extends Error {
  // unreachable: no connection or no reply; bad_reply: a reply that cannot be used.
  readonly code: 'unreachable' | 'timeout' | 'too_large' | 'bad_reply'
  constructor(code: AuthHttpError['code'], message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'AuthHttpError'
    this.code = code
  }
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value
}

async function readLimited(body: Dispatcher.ResponseData['body'], maxBytes: number, url: string): Promise<string> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > maxBytes) {
      body.destroy()
      throw new AuthHttpError('too_large', `${url}: reply larger than ${maxBytes} bytes`)
    }
    chunks.push(chunk)
  }
  return Buffer.concat(chunks).toString('utf8')
}

export async function requestBounded(dispatcher: Dispatcher, request: BoundedRequest): Promise<BoundedReply> {
  const url = new URL(request.url)
  const maxBytes = request.maxBytes ?? DEFAULT_MAX_AUTH_REPLY_BYTES
  const deadline = AbortSignal.timeout(request.timeoutMs ?? DEFAULT_AUTH_TIMEOUT_MS)
  const signal = request.signal ? AbortSignal.any([deadline, request.signal]) : deadline
  try {
    const response = await dispatcher.request({
      origin: url.origin, path: url.pathname + url.search, method: request.method, headers: request.headers, body: request.body, signal,
    })
    const declared = Number(firstHeader(response.headers['content-length']))
    if (declared > maxBytes) {
      response.body.destroy()
      throw new AuthHttpError('too_large', `${url.origin}${url.pathname}: reply larger than ${maxBytes} bytes`)
    }
    const text = await readLimited(response.body, maxBytes, `${url.origin}${url.pathname}`)
    return { status: response.statusCode, contentType: firstHeader(response.headers['content-type']), text }
  } catch (err) {
    if (err instanceof AuthHttpError) throw err
    const code = deadline.aborted ? 'timeout' : 'unreachable'
    throw new AuthHttpError(code, `${url.origin}${url.pathname}: ${code === 'timeout' ? 'no answer in time' : 'cannot be reached'}`, { cause: err })
  }
}

// A fetch for jose's createRemoteJWKSet ([customFetch]): the same bounds, answered as a Response.
export function createJwksFetch(dispatcher: Dispatcher, options: { timeoutMs?: number; maxBytes?: number } = {}) {
  return async (url: string, init: { headers: Headers; signal: AbortSignal }): Promise<Response> => {
    const headers = Object.fromEntries(init.headers.entries())
    const reply = await requestBounded(dispatcher, { url, method: 'GET', headers, signal: init.signal, ...options })
    const body = reply.status === 204 || reply.status === 205 || reply.status === 304 ? null : reply.text
    return new Response(body, { status: reply.status, headers: { 'content-type': reply.contentType ?? 'application/json' } })
  }
}
