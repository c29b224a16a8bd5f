// API keys (`Authorization: Bearer <key>`): the config holds only each key's SHA-256; a presented
// key's digest is compared with every configured digest in constant time, so neither timing nor
// the order of the list tells which key (or how much of one) matched.
import { createHash, timingSafeEqual } from 'node:crypto'
import type { ApiKeyConfig } from './auth-types.ts'
import { Principal, PRINCIPAL_KIND } from './principal.ts'

interface CompiledKey {
  digest: Buffer
  principal: Principal
}

export class ApiKeys {
  readonly #keys: CompiledKey[]

  constructor(keys: readonly ApiKeyConfig[]) {
    this.#keys = keys.map((key) => ({
      digest: Buffer.from(key.sha256, 'hex'),
      principal: new Principal({ kind: PRINCIPAL_KIND.apiKey, subject: key.name, scopes: key.scopes }),
    }))
  }

  get size(): number {
    return this.#keys.length
  }

  // The key's principal, or undefined when the presented value is no configured key.
  match(presented: string): Principal | undefined {
    if (this.#keys.length === 0) return undefined
    const digest = createHash('sha256').update(presented, 'utf8').digest()
    let found: Principal | undefined
    for (const key of this.#keys) {
      // No early exit: every digest is compared.
      if (timingSafeEqual(digest, key.digest) && found === undefined) found = key.principal
    }
    return found
  }
}
