// An in-memory Backend for routing unit tests: fixed capabilities and lists, every listen recorded
// with its filter, its sink (for the test to drive) and how often its closer ran.
import type { JsonObject } from '../../src/protocol/jsonrpc.ts'
import type { BackendEntry } from '../../src/routing/backend-set.ts'
import type { Backend, BackendStatus, ListenSink, UpstreamCall, UpstreamReply } from '../../src/upstream/backend.ts'

export interface FakeListen {
  filter: JsonObject
  sink: ListenSink
  closes: number
}

type ListKey = 'tools' | 'prompts' | 'resources' | 'resourceTemplates'

export interface FakeBackendOptions {
  capabilities?: JsonObject
  // What each list method returns (one page, public, long-lived).
  lists?: Partial<Record<ListKey, JsonObject[]>>
  // false → the backend has no listen() at all.
  listen?: boolean
  up?: boolean
}

export interface FakeBackend extends Backend {
  up: boolean
  readonly listens: FakeListen[]
  readonly calls: UpstreamCall[]
  // Listens whose closer has not run yet.
  openListens(): FakeListen[]
  lastListen(): FakeListen
}

const LIST_KEYS = new Map<string, ListKey>([
  ['tools/list', 'tools'],
  ['prompts/list', 'prompts'],
  ['resources/list', 'resources'],
  ['resources/templates/list', 'resourceTemplates'],
])

export const FULL_CAPABILITIES: JsonObject = {
  tools: { listChanged: true },
  prompts: { listChanged: true },
  resources: { listChanged: true, subscribe: true },
}

export function createFakeBackend(name: string, options: FakeBackendOptions = {}): FakeBackend {
  const capabilities = options.capabilities ?? FULL_CAPABILITIES
  const listens: FakeListen[] = []
  const calls: UpstreamCall[] = []
  const backend: FakeBackend = {
    name,
    transport: 'http',
    up: options.up ?? true,
    listens,
    calls,
    start: async () => {},
    status(): BackendStatus {
      return { name, transport: 'http', era: 'modern', up: backend.up }
    },
    capabilities: () => capabilities,
    async request(call: UpstreamCall): Promise<UpstreamReply> {
      calls.push(call)
      const key = LIST_KEYS.get(call.method)
      if (key === undefined) return { ok: true, result: {} }
      return { ok: true, result: { [key]: options.lists?.[key] ?? [], ttlMs: 600_000, cacheScope: 'public' } }
    },
    listen: options.listen === false ? undefined : (filter: JsonObject, sink: ListenSink) => {
      const listen: FakeListen = { filter, sink, closes: 0 }
      listens.push(listen)
      return () => { listen.closes++ }
    },
    close: async () => {},
    openListens: () => listens.filter((listen) => listen.closes === 0),
    lastListen(): FakeListen {
      const last = listens.at(-1)
      if (last === undefined) throw new Error(`backend ${name} has no listen`)
      return last
    },
  }
  return backend
}

export function entryOf(backend: Backend): BackendEntry {
  return {
    backend,
    config: { name: backend.name, namespace: '', timeoutMs: 10_000, transport: 'http', url: `http://${backend.name}.invalid/mcp`, headers: {}, connections: 1, maxReplyBytes: 1024 * 1024, downAfterFailures: 3, http2: true },
  }
}
