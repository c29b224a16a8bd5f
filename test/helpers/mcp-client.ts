// Clients for the gateway under test: raw undici POSTs carrying the 2026-07-28 headers and `_meta`
// (for error cases and wire-level checks), an SSE reader that records arrival times, and an SDK v2
// client pinned to 2026-07-28. Constants are spelled out here, not imported from src/, so the tests
// check the gateway against the wire format rather than against itself.
import type { IncomingHttpHeaders } from 'node:http'
import { Agent, fetch as undiciFetch, type Dispatcher } from 'undici'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import type { TeardownHost } from './backend-process.ts'

export const PROTOCOL_VERSION = '2026-07-28'

export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
} as const

export const CLIENT_INFO = Object.freeze({ name: 'gateway-tests', version: '1.0.0' })

// Methods whose Mcp-Name header mirrors a param (HDR-2).
const NAME_PARAM: ReadonlyMap<string, 'name' | 'uri'> = new Map([
  ['tools/call', 'name'],
  ['prompts/get', 'name'],
  ['resources/read', 'uri'],
])

export type HeaderOverrides = Record<string, string | undefined>
export type JsonValue = Record<string, unknown>

export interface RpcOptions {
  id?: string | number
  // Merged over the default modern _meta; a key set to undefined is removed.
  meta?: Record<string, unknown>
  // Merged over the default headers; a header set to undefined is removed.
  headers?: HeaderOverrides
}

export interface RawReply {
  status: number
  headers: IncomingHttpHeaders
  text: string
  // The parsed body; undefined when it is empty or not JSON.
  json: any
}

export interface SseEvent {
  message: any
  // performance.now() when the event was decoded.
  receivedAt: number
}

export interface RawStream {
  status: number
  headers: IncomingHttpHeaders
  events: AsyncGenerator<SseEvent>
}

export function modernMeta(overrides: Record<string, unknown> = {}): JsonValue {
  const meta: JsonValue = {
    [META.protocolVersion]: PROTOCOL_VERSION,
    [META.clientCapabilities]: {},
    [META.clientInfo]: CLIENT_INFO,
    ...overrides,
  }
  for (const [key, value] of Object.entries(meta)) if (value === undefined) delete meta[key]
  return meta
}

function applyOverrides(base: Record<string, string>, overrides: HeaderOverrides = {}): Record<string, string> {
  const headers = { ...base }
  for (const [name, value] of Object.entries(overrides)) {
    if (value === undefined) delete headers[name.toLowerCase()]
    else headers[name.toLowerCase()] = value
  }
  return headers
}

export const BASE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
})

// A 2026-07-28 request body and the headers that mirror it (VER-1, HDR-1, HDR-2).
export function buildRpc(method: string, params: JsonValue = {}, options: RpcOptions = {}): { body: JsonValue; headers: Record<string, string> } {
  const fullParams: JsonValue = { ...params, _meta: modernMeta(options.meta) }
  const body = { jsonrpc: '2.0', id: options.id ?? 1, method, params: fullParams }
  const base: Record<string, string> = { ...BASE_HEADERS, 'mcp-protocol-version': PROTOCOL_VERSION, 'mcp-method': method }
  const nameParam = NAME_PARAM.get(method)
  const name = nameParam === undefined ? undefined : params[nameParam]
  if (typeof name === 'string') base['mcp-name'] = name
  return { body, headers: applyOverrides(base, options.headers) }
}

function parseJson(text: string): any {
  if (text === '') return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

// Incremental SSE decoding: one JSON message per `data:` event; comments and other fields skipped.
export async function* readSseEvents(body: AsyncIterable<Buffer | string>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder()
  let buffer = ''
  let data: string[] = []
  for await (const chunk of body) {
    buffer += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true })
    let newline: number
    while ((newline = buffer.indexOf('\n')) !== -1) {
      const line = buffer.slice(0, newline).replace(/\r$/, '')
      buffer = buffer.slice(newline + 1)
      if (line === '') {
        if (data.length > 0) yield { message: JSON.parse(data.join('\n')), receivedAt: performance.now() }
        data = []
      } else if (line.startsWith('data:')) {
        data.push(line.slice(line.startsWith('data: ') ? 6 : 5))
      }
    }
  }
}

export class RawMcpClient {
  readonly url: URL
  readonly #dispatcher: Dispatcher

  constructor(url: string, dispatcher: Dispatcher) {
    this.url = new URL(url)
    this.#dispatcher = dispatcher
  }

  // Any HTTP request to the gateway's origin; the body is read in full.
  async send(method: Dispatcher.HttpMethod, path: string, init: { headers?: Record<string, string>; body?: string } = {}): Promise<RawReply> {
    const response = await this.#dispatcher.request({ origin: this.url.origin, path, method, headers: init.headers, body: init.body })
    const text = await response.body.text()
    return { status: response.statusCode, headers: response.headers, text, json: parseJson(text) }
  }

  // POST /mcp with the default content headers; an object body is JSON-encoded.
  post(body: string | object, headers: HeaderOverrides = {}): Promise<RawReply> {
    const text = typeof body === 'string' ? body : JSON.stringify(body)
    return this.send('POST', this.url.pathname, { headers: applyOverrides({ ...BASE_HEADERS }, headers), body: text })
  }

  // A well-formed 2026-07-28 request, with overrides to break it on purpose.
  rpc(method: string, params: JsonValue = {}, options: RpcOptions = {}): Promise<RawReply> {
    const { body, headers } = buildRpc(method, params, options)
    return this.send('POST', this.url.pathname, { headers, body: JSON.stringify(body) })
  }

  // A request whose reply is read as it arrives (SSE events, with arrival times).
  async stream(method: string, params: JsonValue = {}, options: RpcOptions & { signal?: AbortSignal } = {}): Promise<RawStream> {
    const { body, headers } = buildRpc(method, params, options)
    const response = await this.#dispatcher.request({
      origin: this.url.origin,
      path: this.url.pathname,
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      signal: options.signal,
    })
    return { status: response.statusCode, headers: response.headers, events: readSseEvents(response.body) }
  }
}

// A raw client with its own connection pool, closed at teardown (no socket outlives the test).
// `localAddress` binds its connections to that source address (127.0.0.2 …): to the gateway, a
// different client (limits are per client address until authentication is on). undici takes it as
// the pool's `localAddress`: `connect: { localAddress }` is overridden by the pool's own (none).
// `agent`: more pool options (a CA to trust, allowH2) for an https:// gateway.
export function createRawClient(t: TeardownHost, url: string, options: { localAddress?: string; agent?: Agent.Options } = {}): RawMcpClient {
  const agent = new Agent({ keepAliveTimeout: 1_000, localAddress: options.localAddress, ...options.agent })
  t.teardown(() => agent.destroy())
  return new RawMcpClient(url, agent)
}

// The SDK v2 client pinned to 2026-07-28 (see test/integration/fixtures-sdk-backend.test.ts), on a
// connection pool of its own that is destroyed at teardown. On the process-wide fetch pool, an
// aborted call can leave a connected socket that never sends a request; the gateway's
// server.close() cannot treat such a connection as idle and waits for its headers timeout, so a
// test file's teardown would stall for a minute (and a socket would outlive the test).
export async function connectClient(t: TeardownHost, url: string, name = 'gateway-tests', agentOptions: Agent.Options = {}): Promise<Client> {
  const agent = new Agent({ keepAliveTimeout: 1_000, ...agentOptions })
  const fetch = ((input: string | URL, init?: RequestInit) => undiciFetch(input, { ...init, dispatcher: agent } as Parameters<typeof undiciFetch>[1])) as unknown as typeof globalThis.fetch
  const client = new Client({ name, version: '1.0.0' }, { versionNegotiation: { mode: { pin: PROTOCOL_VERSION } } })
  t.teardown(() => agent.destroy())
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch }))
  t.teardown(() => client.close())
  return client
}

// "=?base64?…?=" sentinel encoding of a header value (HDR-3).
export function base64Sentinel(value: string): string {
  return `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`
}

// Prometheus text → value of one sample (labels matched exactly, in any order); 0 when absent.
export function metricValue(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (!match || match[1] !== name) continue
    const found = new Map<string, string>()
    for (const pair of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) found.set(pair[1], pair[2])
    const wanted = Object.entries(labels)
    if (found.size === wanted.length && wanted.every(([key, value]) => found.get(key) === value)) return Number(match[3])
  }
  return 0
}
