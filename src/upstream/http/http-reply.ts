// The one reader of a backend's HTTP reply to a POSTed request, modern and legacy alike (HTTP-7):
// one JSON object, NDJSON lines under application/json, or an SSE stream (priming events skipped).
// Request-scoped notifications are relayed the moment they arrive (SSE-1); a 2025-11-25 backend's
// own requests on the stream go to `onServerRequest` (LEGACY-C5), and are dropped without one.
import type { JsonObject, JsonRpcErrorObject, JsonRpcId, JsonRpcNotification } from '../../protocol/jsonrpc.ts'
import { isJsonObject } from '../../protocol/jsonrpc.ts'
import { ScannedReply, type UpstreamReply } from '../backend.ts'
import { scanResponse } from '../../protocol/result-scan.ts'
import { BadReplyError, isEventStream, isJsonContent, parseJsonBody, readSse } from './reply-reader.ts'
import { meterBody, type ReplyMeter } from '../shared/reply-budget.ts'

export interface ReplyOptions {
  id: JsonRpcId
  onNotification?: (notification: JsonRpcNotification) => void
  onServerRequest?: (request: JsonObject) => void
  maxEventChars: number
  // The reply's share of the gateway's reply budget (README "Limits"); absent: not counted.
  meter?: ReplyMeter
  // The result goes on to a client: read by scanning (result-scan.ts), to be spliced; else parsed.
  scan?: boolean
}

// What the reader needs of an undici response (Dispatcher.ResponseData fits).
export interface ReplyBody extends AsyncIterable<Buffer | string> {
  // Discards the rest cheaply (undici); without it the body is read to its end.
  dump?(): Promise<void>
}
export interface HttpReply {
  statusCode: number
  headers: Record<string, string | string[] | undefined>
  body: ReplyBody
  // The whole body, when it was read already (dispatch-post.ts reads every reply but a stream).
  text?: string
}

export function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value
}

// The reply is an SSE stream (read on after its final message).
export function isStreaming(response: Pick<HttpReply, 'headers'> | undefined): boolean {
  return response !== undefined && isEventStream(headerValue(response.headers['content-type']))
}

// A JSON-RPC request (method and id): from a legacy backend to the gateway.
export function isServerRequest(message: JsonObject): boolean {
  return typeof message.method === 'string' && 'id' in message
}

function asReply(message: JsonObject, id: JsonRpcId): UpstreamReply | undefined {
  if (message.id !== id && !(message.id === null && 'error' in message)) return undefined
  if (isJsonObject(message.result)) return { ok: true, result: message.result }
  if (isJsonObject(message.error) && typeof message.error.code === 'number') {
    return { ok: false, error: message.error as unknown as JsonRpcErrorObject }
  }
  throw new BadReplyError('backend response has neither a result nor an error')
}

// Returns the final reply when `message` is it; otherwise routes the message and returns undefined.
function route(message: JsonObject, options: ReplyOptions): UpstreamReply | undefined {
  if (isServerRequest(message)) {
    options.onServerRequest?.(message)
    return undefined
  }
  if (typeof message.method === 'string') {
    options.onNotification?.(message as unknown as JsonRpcNotification)
    return undefined
  }
  return asReply(message, options.id)
}

// The body's chunks kept as they are and decoded once: one copy, not one per concatenation. A
// stream body (undici's) is read by its events: cheaper than async iteration, one chunk at a time.
function readText(body: ReplyBody, meter: ReplyMeter | undefined): Promise<string> {
  if (!isEventSource(body)) return iterateText(metered(body, meter))
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    const onData = (chunk: Buffer | string): void => {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
      try {
        meter?.hold(buffer.length)
      } catch (err) {
        body.off('data', onData)
        body.destroy(err as Error)
        return reject(err)
      }
      chunks.push(buffer)
    }
    let ended = false
    body.on('data', onData)
    body.once('end', () => {
      ended = true
      resolve(decode(chunks))
    })
    body.once('error', reject)
    // Destroyed without an error: what async iteration reports as a premature close.
    body.once('close', () => {
      if (!ended) reject(Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }))
    })
  })
}

// An undici body: a Readable stream (tests may pass plain async iterables).
interface EventBody {
  on(event: 'data', listener: (chunk: Buffer | string) => void): unknown
  off(event: 'data', listener: (chunk: Buffer | string) => void): unknown
  once(event: 'end' | 'error' | 'close', listener: (err?: unknown) => void): unknown
  destroy(err?: Error): unknown
}

function isEventSource(body: ReplyBody): body is ReplyBody & EventBody {
  const candidate = body as Partial<EventBody>
  return typeof candidate.on === 'function' && typeof candidate.off === 'function' && typeof candidate.destroy === 'function'
}

async function iterateText(body: AsyncIterable<Buffer | string>): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of body) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)
  return decode(chunks)
}

function decode(chunks: Buffer[]): string {
  return chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8')
}

function metered(body: ReplyBody, meter: ReplyMeter | undefined): AsyncIterable<Buffer | string> {
  return meter === undefined ? body : meterBody(body, meter)
}

// A lone result for this request that goes on to a client is read by scanning, without JSON.parse
// (result-scan.ts); any other body (an error, NDJSON lines, a batch, notifications first) is parsed.
function jsonReply(text: string, options: ReplyOptions): UpstreamReply | undefined {
  const scan = options.scan === true ? scanResponse(text, JSON.stringify(options.id)) : undefined
  if (scan !== undefined) return new ScannedReply(scan)
  for (const message of parseJsonBody(text)) {
    const reply = route(message, options)
    if (reply) return reply
  }
  return undefined
}

// Resolves at the final reply; the rest of the stream is drained, not delivered (SSE-3, PROG-3).
function readStream(body: ReplyBody, options: ReplyOptions): Promise<UpstreamReply | undefined> {
  let found: UpstreamReply | undefined
  return new Promise((resolve, reject) => {
    const sink = (message: JsonObject, text: string): boolean => {
      // The event is parsed and handed on: its bytes are no longer buffered.
      options.meter?.releaseHeld()
      if (found) return false
      found = route(message, options)
      const scan = found?.ok && options.scan === true ? scanResponse(text, JSON.stringify(options.id)) : undefined
      if (scan !== undefined) found = new ScannedReply(scan, (found as { result: JsonObject }).result)
      if (found) resolve(found)
      return false
    }
    // A failure after the final reply only ends the drain.
    readSse(metered(body, options.meter), sink, options.maxEventChars).then(() => resolve(found)).catch((err: unknown) => {
      if (!found) reject(err)
    })
  })
}

async function discard(body: ReplyBody): Promise<void> {
  if (body.dump) return body.dump()
  for await (const _chunk of body) {
    // discarded
  }
}

// A reply read whole already (dispatch-post.ts) is settled at once, without reading.
export function readReply(response: HttpReply, options: ReplyOptions): Promise<UpstreamReply> {
  if (response.text !== undefined) {
    try {
      return Promise.resolve(replyFromText(response, response.text, options))
    } catch (err) {
      return Promise.reject(err as Error)
    } finally {
      options.meter?.close()
    }
  }
  if (options.meter === undefined) return readTyped(response, options)
  return readTyped(response, options).finally(() => options.meter?.close())
}

async function readTyped(response: HttpReply, options: ReplyOptions): Promise<UpstreamReply> {
  if (isEventStream(headerValue(response.headers['content-type']))) {
    const reply = await readStream(response.body, options)
    if (reply) return reply
    throw noReply(response)
  }
  if (keepsBody(response)) return replyFromText(response, await readText(response.body, options.meter), options)
  await discard(response.body)
  throw noReply(response)
}

function noReply(response: Pick<HttpReply, 'statusCode'>): BadReplyError {
  return new BadReplyError(`HTTP ${response.statusCode} without a JSON-RPC response`)
}

// A JSON body, or any body of an error status (it may still hold a JSON-RPC error), is read.
export function keepsBody(response: Pick<HttpReply, 'statusCode' | 'headers'>): boolean {
  return response.statusCode >= 400 || isJsonContent(headerValue(response.headers['content-type']))
}

// The final reply in a body that is not a stream; an error status's unreadable body is no reply.
function replyFromText(response: HttpReply, text: string, options: ReplyOptions): UpstreamReply {
  let reply: UpstreamReply | undefined
  if (keepsBody(response)) {
    try {
      reply = jsonReply(text, options)
    } catch (err) {
      if (response.statusCode < 400) throw err
    }
  }
  if (reply) return reply
  throw noReply(response)
}
