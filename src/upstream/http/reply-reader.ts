// Reads a backend's HTTP reply body as a sequence of JSON-RPC messages (HTTP-7): one JSON object,
// NDJSON lines marked application/json, or an SSE stream (comments and priming events skipped, SSE-5).
import { SseDecoder } from '../../protocol/sse.ts'
import { isJsonObject, type JsonObject } from '../../protocol/jsonrpc.ts'

// Return true to stop reading; `text` is the message as the backend wrote it (the event's data).
export type MessageSink = (message: JsonObject, text: string) => boolean

export class BadReplyError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'BadReplyError'
  }
}

function parseMessage(text: string): JsonObject {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new BadReplyError('backend sent a message that is not JSON')
  }
  if (!isJsonObject(value)) throw new BadReplyError('backend sent a JSON value that is not an object')
  return value
}

// Whole-body JSON; falls back to one message per line (NDJSON under application/json). JSON.parse
// takes the surrounding whitespace itself: the text is trimmed only when it fails.
export function parseJsonBody(text: string): JsonObject[] {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    const trimmed = text.trim()
    if (trimmed === '') return []
    return trimmed.split(/\r?\n/).filter((line) => line.trim() !== '').map(parseMessage)
  }
  if (isJsonObject(value)) return [value]
  if (Array.isArray(value)) return value.filter(isJsonObject)
  throw new BadReplyError('backend sent a JSON value that is not an object')
}

export async function readSse(body: AsyncIterable<Buffer | string>, sink: MessageSink, maxEventChars: number): Promise<boolean> {
  const decoder = new SseDecoder(maxEventChars)
  const utf8 = new TextDecoder()
  for await (const chunk of body) {
    const text = typeof chunk === 'string' ? chunk : utf8.decode(chunk, { stream: true })
    for (const data of decoder.push(text)) if (sink(parseMessage(data), data)) return true
  }
  for (const data of decoder.end()) if (sink(parseMessage(data), data)) return true
  return false
}

export function isEventStream(contentType: string | undefined): boolean {
  return contentType !== undefined && contentType.toLowerCase().startsWith('text/event-stream')
}

export function isJsonContent(contentType: string | undefined): boolean {
  return contentType !== undefined && /^application\/(?:[\w.+-]+\+)?json/i.test(contentType)
}
