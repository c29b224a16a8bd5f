// oidc-provider ships no type declarations (DefinitelyTyped's are not installed): the few members
// the test authorization server uses.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http'

  export interface OidcContext {
    oidc: {
      client?: { clientId: string }
      params?: Record<string, unknown>
      provider: Provider
    }
    body?: unknown
    status?: number
  }

  export class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>)
    readonly issuer: string
    proxy: boolean
    callback(): (req: IncomingMessage, res: ServerResponse) => void
    registerGrantType(name: string, handler: (ctx: OidcContext) => Promise<void>, params?: Iterable<string>, dupes?: Iterable<string>): void
    on(event: string, listener: (...args: any[]) => void): this
    AccessToken: new (init: Record<string, unknown>) => { save(): Promise<string>; expiration: number; scope?: string }
    Client: { find(id: string): Promise<{ clientId: string } | undefined> }
  }

  export const errors: {
    InvalidGrant: new (description?: string) => Error
    InvalidTarget: new (description?: string) => Error
    InvalidRequest: new (description?: string) => Error
  }

  export default Provider
}
