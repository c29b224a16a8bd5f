// One routed call as the router sees it (a CallContext), from the front door's side: cancelled
// when the client's response closes before the answer was written (CANCEL-1, CANCEL-11; h2 too,
// front/http2-response.ts), and a notification sink that lets through what the client asked for
// (progress with its own token, increasing, logs at its level; PROG-2, PROG-7, LOG-2). One object per call: it is its
// own cancel signal and its own stream filter.
import type { ServerResponse } from 'node:http'
import type { Principal } from '../auth/principal.ts'
import type { JsonRpcId, JsonRpcNotification } from '../protocol/jsonrpc.ts'
import type { LogLevel } from '../protocol/meta.ts'
import type { CallContext } from '../routing/call-context.ts'
import type { RequestTrace } from '../observability/tracing.ts'
import { CallCancel, type CancelSignal } from '../upstream/shared/cancel-signal.ts'
import { isDeliverable, type StreamFilter } from './notifications.ts'
import type { ReplyStream } from './reply-stream.ts'

export interface FrontCallOptions {
  res: ServerResponse
  stream: ReplyStream
  principal?: Principal
  client?: string
  progressToken?: JsonRpcId
  logLevel?: LogLevel
}

export class FrontCall extends CallCancel implements CallContext, StreamFilter {
  readonly signal: CancelSignal = this
  readonly principal: Principal | undefined
  readonly client: string | undefined
  readonly progressToken: JsonRpcId | undefined
  readonly logLevel: LogLevel | undefined
  lastProgress: number | undefined = undefined
  trace: RequestTrace | undefined
  backend: string | undefined
  tool: string | undefined
  upstreamTool: string | undefined
  readonly #res: ServerResponse
  readonly #stream: ReplyStream

  constructor(options: FrontCallOptions) {
    super()
    this.#res = options.res
    this.#stream = options.stream
    this.principal = options.principal
    this.client = options.client
    this.progressToken = options.progressToken
    this.logLevel = options.logLevel
  }

  readonly onNotification = (notification: JsonRpcNotification): void => {
    if (isDeliverable(notification, this)) this.#stream.notify(notification)
  }

  // The response's 'close' listener: an early close is the client's cancel.
  readonly onClose = (): void => {
    if (!this.#res.writableEnded) this.abort()
  }
}
