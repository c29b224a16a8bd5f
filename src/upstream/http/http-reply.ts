// Turns one backend HTTP response into the call's reply, relaying request-scoped notifications
// the moment they arrive (SSE-1), whatever the reply form (HTTP-7).
import type { Dispatcher } from 'undici'
import type { JsonObject, JsonRpcErrorObject, JsonRpcId, JsonRpcNotification } from '../../protocol/jsonrpc.ts'
import { isJsonObject } from '../../protocol/jsonrpc.ts'
import type { UpstreamReply } from '../backend.ts'
import { BadReplyError, isEventStream, isJsonContent, parseJsonBody, readSse } from './reply-reader.ts'

export interface ReplyOptions {
  id: JsonRpcId
  onNotification: ((notification: JsonRpcNotification) => void) | undefined
  maxEventChars: number
}

function asReply(message: JsonObject, id: JsonRpcId): UpstreamReply | undefined {
  const matches = message.id === id || (message.id === null && 'error' in message)
  if (!matches) return undefined
  if (isJsonObject(message.result)) return { ok: true, result: message.result }
  if (isJsonObject(message.error) && typeof message.error.code === 'number') {
    return { ok: false, error: message.error as unknown as JsonRpcErrorObject }
  }
  throw new BadReplyError('backend response has neither a result nor an error')
}

// Returns true when the message was the final reply.
function take(message: JsonObject, options: ReplyOptions, found: { reply?: UpstreamReply }): boolean {
  if (found.reply) return true
  if (typeof message.method === 'string' && !('id' in message)) {
    options.onNotification?.(message as unknown as JsonRpcNotification)
    return false
  }
  const reply = asReply(message, options.id)
  if (reply) found.reply = reply
  return reply !== undefined
}

async function readJson(body: Dispatcher.ResponseData['body'], options: ReplyOptions): Promise<UpstreamReply | undefined> {
  const found: { reply?: UpstreamReply } = {}
  for (const message of parseJsonBody(await body.text())) if (take(message, options, found)) break
  return found.reply
}

// Resolves at the final reply; the rest of the stream is drained, not delivered (SSE-3, PROG-3).
function readStream(body: Dispatcher.ResponseData['body'], options: ReplyOptions): Promise<UpstreamReply | undefined> {
  const found: { reply?: UpstreamReply } = {}
  return new Promise((resolve, reject) => {
    const sink = (message: JsonObject): boolean => {
      const done = !found.reply && take(message, options, found)
      if (done) resolve(found.reply)
      return false
    }
    readSse(body, sink, options.maxEventChars).then(() => resolve(found.reply), (err: unknown) => {
      if (found.reply) return
      reject(err)
    })
  })
}

export async function readReply(response: Dispatcher.ResponseData, options: ReplyOptions): Promise<UpstreamReply> {
  const contentType = response.headers['content-type']
  const type = Array.isArray(contentType) ? contentType[0] : contentType
  let reply: UpstreamReply | undefined
  if (isEventStream(type)) reply = await readStream(response.body, options)
  else if (isJsonContent(type) || response.statusCode >= 400) reply = await readJson(response.body, options).catch((err: unknown) => {
    if (response.statusCode < 400) throw err
    return undefined
  })
  else await response.body.dump()
  if (reply) return reply
  throw new BadReplyError(`HTTP ${response.statusCode} without a JSON-RPC response`)
}
