// An in-memory StdioSession for unit tests: records what the gateway writes, lets the test answer.
import type { JsonObject, JsonRpcId } from '../../src/protocol/jsonrpc.ts'
import type { ChildReply, StdioSession } from '../../src/upstream/stdio/stdio-session.ts'

export type Written =
  | { kind: 'request'; id: string; method: string; params: JsonObject }
  | { kind: 'notify'; method: string; params?: JsonObject }
  | { kind: 'respond'; id: JsonRpcId; body: JsonObject }

export interface FakeSession {
  session: StdioSession
  written: Written[]
  pending: Map<string, (reply: ChildReply) => void>
  // Answers a pending request, as the child would; false when nothing waits for `id`.
  reply(id: string, reply: ChildReply): boolean
  lastRequest(): Extract<Written, { kind: 'request' }>
}

export function createFakeSession(): FakeSession {
  const written: Written[] = []
  const pending = new Map<string, (reply: ChildReply) => void>()
  const session: StdioSession = {
    pid: 4242,
    exited: new Promise(() => {}),
    request({ id, method, params }, onReply) {
      pending.set(id, onReply)
      written.push({ kind: 'request', id, method, params })
    },
    forget: (id) => { pending.delete(id) },
    notify: (method, params) => { written.push({ kind: 'notify', method, params }) },
    respond: (id, body) => { written.push({ kind: 'respond', id, body }) },
    terminate: async () => ({ code: 0, signal: null }),
  }
  return {
    session,
    written,
    pending,
    reply(id, reply) {
      const onReply = pending.get(id)
      pending.delete(id)
      onReply?.(reply)
      return onReply !== undefined
    },
    lastRequest() {
      const requests = written.filter((entry) => entry.kind === 'request')
      return requests[requests.length - 1] as Extract<Written, { kind: 'request' }>
    },
  }
}
