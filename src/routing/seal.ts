// Self-contained sealed tokens (cursors PAGE-6, requestState MRTR-8/9, bridge handles, legacy
// session ids): any replica holding the same secret can open them (RPC-8), nobody else can read or
// forge them. AES-256-GCM (authenticated encryption) under a key derived from the secret with
// HKDF; every token carries an expiry inside the ciphertext. Format, base64url:
//   version (1 byte) | IV (12) | ciphertext of [expiry ms, uint64 BE | payload JSON] | tag (16)
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto'
import type { JsonObject } from '../protocol/jsonrpc.ts'
import { isJsonObject } from '../protocol/jsonrpc.ts'

const FORMAT = 1
const IV_BYTES = 12
const TAG_BYTES = 16
const EXPIRY_BYTES = 8
const HEADER = Buffer.from([FORMAT])
// Replicas must share the secret; shorter ones are refused at start (config).
export const MIN_SECRET_BYTES = 32
export const DEFAULT_SEAL_TTL_MS = 600_000

export interface SealerOptions {
  // Lifetime of a token sealed without an explicit one.
  ttlMs?: number
}

export class Sealer {
  readonly #key: Buffer
  readonly #ttlMs: number

  constructor(secret: string, options: SealerOptions = {}) {
    // Config validation refuses a shorter one at start; this guards every other caller.
    if (Buffer.byteLength(secret, 'utf8') < MIN_SECRET_BYTES) throw new RangeError(`the state secret must be at least ${MIN_SECRET_BYTES} bytes`)
    this.#key = Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), 'mcp-gateway', 'sealed-token/v1', 32))
    this.#ttlMs = options.ttlMs ?? DEFAULT_SEAL_TTL_MS
  }

  seal(payload: JsonObject, ttlMs = this.#ttlMs): string {
    const iv = randomBytes(IV_BYTES)
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv)
    cipher.setAAD(HEADER)
    const expiry = Buffer.allocUnsafe(EXPIRY_BYTES)
    expiry.writeBigUInt64BE(BigInt(Math.max(0, Math.floor(Date.now() + ttlMs))))
    const body = Buffer.concat([cipher.update(expiry), cipher.update(JSON.stringify(payload), 'utf8'), cipher.final()])
    return Buffer.concat([HEADER, iv, body, cipher.getAuthTag()]).toString('base64url')
  }

  // undefined when tampered, malformed, sealed under another secret or expired (the token's own
  // expiry, or a payload field `exp` in epoch ms that is already past).
  open(token: unknown, now = Date.now()): JsonObject | undefined {
    const plain = typeof token === 'string' ? this.#decrypt(token) : undefined
    if (plain === undefined || Number(plain.readBigUInt64BE(0)) < now) return undefined
    let payload: unknown
    try {
      payload = JSON.parse(plain.toString('utf8', EXPIRY_BYTES))
    } catch {
      return undefined
    }
    if (!isJsonObject(payload)) return undefined
    if (typeof payload.exp === 'number' && payload.exp < now) return undefined
    return payload
  }

  #decrypt(token: string): Buffer | undefined {
    const raw = Buffer.from(token, 'base64url')
    if (raw.length < 1 + IV_BYTES + EXPIRY_BYTES + TAG_BYTES || raw[0] !== FORMAT || raw.toString('base64url') !== token) return undefined
    const decipher = createDecipheriv('aes-256-gcm', this.#key, raw.subarray(1, 1 + IV_BYTES))
    decipher.setAAD(HEADER)
    decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES))
    try {
      return Buffer.concat([decipher.update(raw.subarray(1 + IV_BYTES, raw.length - TAG_BYTES)), decipher.final()])
    } catch {
      return undefined
    }
  }
}
