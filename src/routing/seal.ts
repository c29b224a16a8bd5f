// Self-contained, integrity-protected tokens (cursors PAGE-6, requestState MRTR-8/9): any replica
// holding the same secret can open them (RPC-8). HMAC-SHA256 over a base64url JSON payload.
import { createHmac, timingSafeEqual } from 'node:crypto'
import type { JsonObject } from '../protocol/jsonrpc.ts'
import { isJsonObject } from '../protocol/jsonrpc.ts'

export class Sealer {
  readonly #secret: Buffer

  constructor(secret: string) {
    this.#secret = Buffer.from(secret, 'utf8')
  }

  seal(payload: JsonObject): string {
    const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url')
    return `${body}.${this.#mac(body)}`
  }

  // undefined when tampered, malformed or expired (payload field `exp`, epoch ms).
  open(token: unknown, now = Date.now()): JsonObject | undefined {
    if (typeof token !== 'string') return undefined
    const dot = token.lastIndexOf('.')
    if (dot <= 0) return undefined
    const body = token.slice(0, dot)
    const given = Buffer.from(token.slice(dot + 1), 'base64url')
    const expected = Buffer.from(this.#mac(body), 'base64url')
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined
    let payload: unknown
    try {
      payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'))
    } catch {
      return undefined
    }
    if (!isJsonObject(payload)) return undefined
    if (typeof payload.exp === 'number' && payload.exp < now) return undefined
    return payload
  }

  #mac(body: string): string {
    return createHmac('sha256', this.#secret).update(body).digest('base64url')
  }
}
