// One live stdio child seen as a JSON-RPC peer: correlates responses to the requests the gateway
// sent (STDIO-5), hands notifications and server→client requests to the backend, and settles
// every pending request at once when the child exits.
import type { Logger } from '../../observability/logger.ts'
import type { JsonObject, JsonRpcErrorObject, JsonRpcId, JsonRpcNotification, JsonRpcRequest } from '../../protocol/jsonrpc.ts'
import { classifyMessage, isJsonObject } from '../../protocol/jsonrpc.ts'
import type { ChildExit, StdioChild, StdioChildOptions } from './child-process.ts'
import { describeExit, spawnStdioChild } from './child-process.ts'

export type ChildReply =
  | { ok: true; result: JsonObject }
  | { ok: false; error: JsonRpcErrorObject }
  // A response that is not valid JSON-RPC.
  | { ok: 'invalid'; detail: string }
  // The child exited before answering.
  | { ok: 'gone'; detail: string }

export interface StdioSessionHandlers {
  onNotification: (notification: JsonRpcNotification) => void
  onServerRequest: (request: JsonRpcRequest) => void
  onExit: (exit: ChildExit) => void
}

export interface StdioSession {
  readonly pid: number | undefined
  // Registers `onReply` for `id`, then writes the request.
  request(request: { id: string; method: string; params: JsonObject }, onReply: (reply: ChildReply) => void): void
  // Stops waiting for `id`: a response arriving later is ignored (CANCEL-6).
  forget(id: string): void
  notify(method: string, params?: JsonObject): void
  // Only for legacy children's requests (LEGACY-C5); modern children never send any (STDIO-4).
  respond(id: JsonRpcId, body: { result: JsonObject } | { error: JsonRpcErrorObject }): void
  terminate(graceMs: number): Promise<ChildExit>
  readonly exited: Promise<ChildExit>
}

export function openStdioSession(options: StdioChildOptions, handlers: StdioSessionHandlers): StdioSession {
  const { logger } = options
  const pending = new Map<JsonRpcId, (reply: ChildReply) => void>()

  const settlePending = (exit: ChildExit): void => {
    const detail = describeExit(exit)
    for (const [id, onReply] of pending) {
      pending.delete(id)
      onReply({ ok: 'gone', detail })
    }
    handlers.onExit(exit)
  }
  const onMessage = (value: unknown): void => routeInbound(value, { pending, handlers, logger })
  const child = spawnStdioChild(options, { onMessage, onExit: settlePending })
  const write = (message: object): void => {
    // A failed write means the child is gone; its exit settles whatever was waiting.
    child.write(message).catch((error: unknown) => logger.debug({ err: error }, 'write to stdio backend failed'))
  }

  return {
    get pid() { return child.pid },
    exited: child.exited,
    request({ id, method, params }, onReply) {
      pending.set(id, onReply)
      write({ jsonrpc: '2.0', id, method, params })
    },
    forget: (id) => { pending.delete(id) },
    notify: (method, params) => write(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params }),
    respond: (id, body) => write({ jsonrpc: '2.0', id, ...body }),
    terminate: (graceMs) => child.terminate(graceMs),
  }
}

interface InboundContext {
  pending: Map<JsonRpcId, (reply: ChildReply) => void>
  handlers: StdioSessionHandlers
  logger: Logger
}

function routeInbound(value: unknown, context: InboundContext): void {
  const classified = classifyMessage(value)
  switch (classified.kind) {
    case 'notification':
      context.handlers.onNotification(classified.message)
      return
    case 'request':
      context.handlers.onServerRequest(classified.message)
      return
    case 'response':
      routeResponse(value as JsonObject, classified.id, context)
      return
    case 'invalid':
      // STDIO-2: anything but a valid MCP message is logged and skipped.
      context.logger.warn({ rpcId: classified.id, problem: classified.reason }, 'stdio backend wrote an invalid JSON-RPC message; skipped')
  }
}

function routeResponse(message: JsonObject, id: JsonRpcId | undefined, context: InboundContext): void {
  const onReply = id === undefined ? undefined : context.pending.get(id)
  if (id === undefined || onReply === undefined) {
    // CANCEL-6: a response to a cancelled, timed-out or unknown request is ignored.
    context.logger.debug({ rpcId: id }, 'stdio backend response for no pending request; ignored')
    return
  }
  context.pending.delete(id)
  onReply(readReply(message))
}

export function readReply(message: JsonObject): ChildReply {
  if ('error' in message) {
    const error = message.error
    if (isJsonObject(error) && Number.isInteger(error.code) && typeof error.message === 'string') {
      return { ok: false, error: error as unknown as JsonRpcErrorObject }
    }
    return { ok: 'invalid', detail: 'error response without an integer code and a message' }
  }
  if (isJsonObject(message.result)) return { ok: true, result: message.result }
  return { ok: 'invalid', detail: 'result is not an object' }
}
