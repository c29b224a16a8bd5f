// A 2026-07-28 backend's subscriptions/listen stream (SUB-*) followed to its end: notifications go
// to the sink as they arrive; the sink hears onClose (or onUnsupported: a 2xx answer without a
// stream) when it ends for any reason but the caller's own abort.
import type { JsonRpcNotification } from '../../protocol/jsonrpc.ts'
import type { ListenSink } from '../backend.ts'
import { isStreaming, type HttpReply } from './http-reply.ts'
import { readSse } from './reply-reader.ts'

export interface ListenFollow {
  // POSTs the subscriptions/listen request.
  open: () => Promise<HttpReply>
  // The caller's: aborted, the stream is let go without a word to the sink.
  signal: AbortSignal
  sink: ListenSink
  maxEventChars: number
}

interface Ended {
  reason: string
  unsupported?: boolean
}

export async function followListen(follow: ListenFollow): Promise<void> {
  const { sink } = follow
  let ended: Ended
  try {
    ended = await readListen(follow)
  } catch (err) {
    if (follow.signal.aborted) return
    ended = { reason: err instanceof Error ? err.message : String(err) }
  }
  if (ended.unsupported && sink.onUnsupported) sink.onUnsupported(ended.reason)
  else sink.onClose(ended.reason)
}

async function readListen({ open, sink, maxEventChars }: ListenFollow): Promise<Ended> {
  const response = await open()
  if (!isStreaming(response)) {
    await response.body.dump?.()
    const reason = `listen answered HTTP ${response.statusCode} without a stream`
    // A 2xx answer is the backend's considered reply, not a failure: it has no listen stream.
    return { reason, unsupported: response.statusCode >= 200 && response.statusCode < 300 }
  }
  sink.onOpen?.()
  await readSse(response.body, (message) => {
    if (typeof message.method === 'string' && message.method !== 'notifications/subscriptions/acknowledged') {
      sink.onNotification(message as unknown as JsonRpcNotification)
    }
    return false
  }, maxEventChars)
  return { reason: 'listen stream ended' }
}
