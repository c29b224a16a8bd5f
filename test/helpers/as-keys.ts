// Signing keys of the test authorization server (published in its JWKS), one key it never
// publishes, and a signer for tokens that real flows would not produce (expired, wrong audience,
// alg none, HS256 with the public key as secret) so each rejection test changes exactly one thing.
import { createPublicKey } from 'node:crypto'
import { exportJWK, generateKeyPair, SignJWT, UnsecuredJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose'

export const KEY_IDS = { rs256: 'rs-1', es256: 'es-1', eddsa: 'ed-1', unpublished: 'rs-unpublished' } as const

interface KeyEntry {
  alg: 'RS256' | 'ES256' | 'EdDSA'
  kid: string
  privateKey: CryptoKey
  publicJwk: JWK
  privateJwk: JWK
}

export interface SignOptions {
  alg?: 'RS256' | 'ES256' | 'EdDSA'
  // Sign with the key the JWKS does not contain (header kid names it).
  unpublished?: boolean
  header?: Record<string, unknown>
}

export class AsKeys {
  readonly #keys: KeyEntry[]
  readonly #unpublished: KeyEntry

  private constructor(keys: KeyEntry[], unpublished: KeyEntry) {
    this.#keys = keys
    this.#unpublished = unpublished
  }

  static async generate(): Promise<AsKeys> {
    const published = await Promise.all([
      makeKey('RS256', KEY_IDS.rs256), makeKey('ES256', KEY_IDS.es256), makeKey('EdDSA', KEY_IDS.eddsa),
    ])
    return new AsKeys(published, await makeKey('RS256', KEY_IDS.unpublished))
  }

  // For oidc-provider's `jwks` (private keys, RS256 first: the default signing key).
  privateJwks(): { keys: JWK[] } {
    return { keys: this.#keys.map((k) => k.privateJwk) }
  }

  publicJwks(): { keys: JWK[] } {
    return { keys: this.#keys.map((k) => k.publicJwk) }
  }

  async sign(claims: JWTPayload, options: SignOptions = {}): Promise<string> {
    const alg = options.alg ?? 'RS256'
    const key = options.unpublished ? this.#unpublished : this.#keys.find((k) => k.alg === alg)!
    return new SignJWT(claims).setProtectedHeader({ typ: 'at+jwt', ...options.header, alg: key.alg, kid: key.kid }).sign(key.privateKey)
  }

  // RFC 8725 §2.1: `alg: none`.
  unsigned(claims: JWTPayload): string {
    return new UnsecuredJWT(claims).encode()
  }

  // Key confusion: HS256 with the published RSA public key (PEM) as the HMAC secret.
  async hmacWithPublicKey(claims: JWTPayload): Promise<string> {
    const rsa = this.#keys.find((k) => k.alg === 'RS256')!
    const pem = createPublicKey({ key: rsa.publicJwk as import('node:crypto').JsonWebKey, format: 'jwk' }).export({ type: 'spki', format: 'pem' })
    return new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: rsa.kid }).sign(new TextEncoder().encode(String(pem)))
  }
}

async function makeKey(alg: KeyEntry['alg'], kid: string): Promise<KeyEntry> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true, ...(alg === 'EdDSA' ? { crv: 'Ed25519' } : {}) })
  const meta = { kid, alg, use: 'sig' }
  return { alg, kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), ...meta }, privateJwk: { ...(await exportJWK(privateKey)), ...meta } }
}
