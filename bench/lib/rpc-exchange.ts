// One JSON-RPC exchange over HTTP POST through an undici dispatcher, reading either a JSON body
// or an SSE stream (notifications first, then the response), with each notification handed over
// with its arrival time.
import type { Dispatcher } from 'undici'
import type { Json, OutgoingRequest } from './mcp-messages.ts'
import { createSseParser } from './sse-parser.ts'

export interface ExchangeOptions {
  path: string
  request: OutgoingRequest
  signal?: AbortSignal
  onNotification?(message: Json, receivedNs: bigint): void
  // Called once the response headers are in (for SSE: before any event).
  onHeaders?(): void
}

export interface ExchangeResult {
  status: number
  response: Json | undefined
  sessionId: string | undefined
  notifications: number
}

function parseJson(text: string): Json | undefined {
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined
  } catch {
    return undefined
  }
}

async function readSse(body: AsyncIterable<Buffer | string>, options: ExchangeOptions): Promise<{ response?: Json; notifications: number }> {
  let response: Json | undefined
  let notifications = 0
  const parser = createSseParser({
    onData(data) {
      const receivedNs = process.hrtime.bigint()
      const message = parseJson(data)
      if (message === undefined) return
      if ('id' in message && ('result' in message || 'error' in message)) response = message
      else {
        notifications++
        options.onNotification?.(message, receivedNs)
      }
    }
  })
  const decoder = new TextDecoder()
  for await (const chunk of body) {
    parser.push(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }))
  }
  return { response, notifications }
}

function readHeader(headers: Dispatcher.ResponseData['headers'], name: string): string | undefined {
  const value = headers[name]
  return Array.isArray(value) ? value[0] : value
}

export async function exchange(dispatcher: Dispatcher, options: ExchangeOptions): Promise<ExchangeResult> {
  const res = await dispatcher.request({
    path: options.path,
    method: 'POST',
    headers: options.request.headers,
    body: options.request.body,
    signal: options.signal
  })
  options.onHeaders?.()
  const sessionId = readHeader(res.headers, 'mcp-session-id')
  if ((readHeader(res.headers, 'content-type') ?? '').startsWith('text/event-stream')) {
    // Read to the end (the response ends the stream) so that the connection is reused.
    const { response, notifications } = await readSse(res.body, options)
    return { status: res.statusCode, response, sessionId, notifications }
  }
  const text = await res.body.text()
  return { status: res.statusCode, response: text === '' ? undefined : parseJson(text), sessionId, notifications: 0 }
}

export function isResult(result: ExchangeResult): boolean {
  return result.status === 200 && result.response !== undefined && 'result' in result.response
}

export function describeFailure(result: ExchangeResult): string {
  const error = result.response?.error
  return `HTTP ${result.status}${error === undefined ? '' : ` ${JSON.stringify(error)}`}`
}
