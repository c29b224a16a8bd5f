// Opens many idle `subscriptions/listen` streams (bounded concurrency, bounded wait for each
// acknowledgement), records when keep-alive comments arrive on each, and closes them all.
import { performance } from 'node:perf_hooks'
import { Client } from 'undici'
import { createModernListen } from './mcp-messages.ts'
import { createSseParser } from './sse-parser.ts'

const ACK_TIMEOUT_MS = 15_000
const BODY_TIMEOUT_MS = 30_000
const ACK_METHOD = 'notifications/subscriptions/acknowledged'

export interface HeldStream {
  client: Client
  controller: AbortController
  keepAlivesMs: number[]
  acked: boolean
  ended: boolean
}

export interface OpenResult {
  streams: HeldStream[]
  errors: number
  firstError?: string
}

function followStream(body: NodeJS.ReadableStream, stream: HeldStream): Promise<HeldStream> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stream.controller.abort()
      reject(new Error('no acknowledgement in time'))
    }, ACK_TIMEOUT_MS)
    const fail = (err: Error): void => {
      stream.ended = true
      clearTimeout(timer)
      if (!stream.acked) reject(err)
    }
    const parser = createSseParser({
      onData(data) {
        if (stream.acked || !data.includes(ACK_METHOD)) return
        stream.acked = true
        clearTimeout(timer)
        resolve(stream)
      },
      onComment: () => void stream.keepAlivesMs.push(performance.now())
    })
    body.setEncoding('utf8')
    body.on('data', (chunk: string) => parser.push(chunk))
    body.on('error', fail)
    body.on('end', () => fail(new Error('stream ended before acknowledgement')))
  })
}

// One undici Client (one connection) per stream: a Pool would scan all its busy connections for
// every new request, quadratic in the number of streams held.
async function openStream(origin: string, path: string, id: number): Promise<HeldStream> {
  const client = new Client(origin, { bodyTimeout: BODY_TIMEOUT_MS, headersTimeout: ACK_TIMEOUT_MS })
  const stream: HeldStream = { client, controller: new AbortController(), keepAlivesMs: [], acked: false, ended: false }
  const request = createModernListen(id)
  try {
    const res = await client.request({ path, method: 'POST', headers: request.headers, body: request.body, signal: stream.controller.signal })
    if (res.statusCode !== 200) {
      await res.body.dump()
      throw new Error(`HTTP ${res.statusCode}`)
    }
    return await followStream(res.body, stream)
  } catch (err) {
    client.destroy().catch(() => {})
    throw err
  }
}

export async function openStreams(origin: string, path: string, count: number, concurrency: number): Promise<OpenResult> {
  const result: OpenResult = { streams: [], errors: 0 }
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < count && result.errors < 100) {
      const id = ++next
      try {
        result.streams.push(await openStream(origin, path, id))
      } catch (err) {
        result.errors++
        result.firstError ??= err instanceof Error ? err.message : String(err)
      }
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  return result
}

export async function closeStreams(streams: HeldStream[]): Promise<void> {
  for (const stream of streams) stream.controller.abort()
  await Promise.all(streams.map((stream) => stream.client.destroy().catch(() => {})))
}

// Longest wait for a keep-alive on one stream within [fromMs, toMs], edges included.
export function measureMaxGapMs(stream: HeldStream, fromMs: number, toMs: number): number {
  let previous = fromMs
  let maxGap = 0
  for (const at of stream.keepAlivesMs) {
    if (at < fromMs || at > toMs) continue
    maxGap = Math.max(maxGap, at - previous)
    previous = at
  }
  return Math.max(maxGap, toMs - previous)
}
