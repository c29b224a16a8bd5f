// The hand-off across replicas (README "Running N replicas"): a message for a waiter on another
// replica travels on that replica's own channel (`mcpgw:handoff:<holder>`, the holder named in the
// id the waiter gave out), and the holder confirms whether someone still waited for it, within a
// bounded time. Nobody subscribed to the channel: the holder is gone (a clear catalogue error).
// A message whose holder is unknown (a client's notifications/cancelled names its own request id)
// is broadcast to every replica, unconfirmed. A waiter on this replica is served without Redis.
import { GatewayError } from '../../errors.ts'
import { isJsonObject, type JsonObject } from '../../protocol/jsonrpc.ts'
import type { Logger } from '../../observability/logger.ts'
import { MemoryHandOff, type HandOff } from '../hand-off.ts'
import { KEY_PREFIX, type RedisLink } from './redis-link.ts'

export const ACK_TIMEOUT_MS = 2_000
const CHANNEL = `${KEY_PREFIX}handoff`

interface Envelope {
  key: string
  message: JsonObject
  // Who wants the confirmation, under which number (absent: a broadcast, unconfirmed).
  from?: string
  ack?: number
}

export class RedisHandOff implements HandOff {
  readonly #link: RedisLink
  readonly #logger: Logger
  readonly #local = new MemoryHandOff()
  readonly #acks = new Map<number, (delivered: boolean) => void>()
  #nextAck = 0

  constructor(link: RedisLink, logger: Logger) {
    this.#link = link
    this.#logger = logger
    link.subscribe(`${CHANNEL}:${link.holder}`, (text) => this.#receive(text))
    link.subscribe(CHANNEL, (text) => this.#receive(text))
  }

  get holder(): string {
    return this.#link.holder
  }

  expect(key: string, receive: (message: JsonObject) => void): () => void {
    return this.#local.expect(key, receive)
  }

  async deliver(key: string, message: JsonObject, holder?: string): Promise<boolean> {
    if (await this.#local.deliver(key, message)) return true
    if (holder === this.#link.holder) return false
    if (holder === undefined) {
      await this.#link.command('hand_off', ['PUBLISH', CHANNEL, JSON.stringify({ key, message } satisfies Envelope)])
      return false
    }
    const ack = ++this.#nextAck
    const confirmed = new Promise<boolean>((resolve) => this.#acks.set(ack, resolve))
    try {
      const envelope: Envelope = { key, message, from: this.#link.holder, ack }
      const receivers = await this.#link.command<number>('hand_off', ['PUBLISH', `${CHANNEL}:${holder}`, JSON.stringify(envelope)])
      if (receivers === 0) throw new GatewayError('MCP_GATEWAY_REPLICA_HOLDER_GONE', `replica ${holder}`)
      return await withTimeout(confirmed, holder)
    } finally {
      this.#acks.delete(ack)
    }
  }

  #receive(text: string): void {
    const envelope = parseEnvelope(text)
    if (envelope === undefined) return
    if (envelope.key === '' && envelope.ack !== undefined) {
      this.#acks.get(envelope.ack)?.(envelope.message.delivered === true)
      return
    }
    this.#local.deliver(envelope.key, envelope.message).then((delivered) => {
      if (envelope.from === undefined || envelope.ack === undefined) return
      const reply: Envelope = { key: '', message: { delivered }, ack: envelope.ack }
      return this.#link.command('hand_off', ['PUBLISH', `${CHANNEL}:${envelope.from}`, JSON.stringify(reply)])
    }).catch((err: unknown) => this.#logger.warn({ err: String(err) }, 'hand-off: confirmation not sent'))
  }
}

function withTimeout(confirmed: Promise<boolean>, holder: string): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new GatewayError('MCP_GATEWAY_REPLICA_HANDOFF_TIMEOUT', `replica ${holder}, ${ACK_TIMEOUT_MS} ms`)), ACK_TIMEOUT_MS)
    timer.unref()
  })
  return Promise.race([confirmed, late]).finally(() => clearTimeout(timer))
}

function parseEnvelope(text: string): Envelope | undefined {
  try {
    const value: unknown = JSON.parse(text)
    if (!isJsonObject(value) || typeof value.key !== 'string' || !isJsonObject(value.message)) return undefined
    return {
      key: value.key, message: value.message,
      from: typeof value.from === 'string' ? value.from : undefined,
      ack: typeof value.ack === 'number' ? value.ack : undefined,
    }
  } catch {
    return undefined
  }
}
