// OAuth 2.0 Protected Resource Metadata (RFC 9728 §2, AUTH-3): built once from the configuration,
// never from the request (its Host could name anything).
import type { AuthConfig } from './auth-types.ts'
import { metadataPaths } from './auth-urls.ts'

export interface ProtectedResourceMetadata {
  resource: string
  authorization_servers: string[]
  scopes_supported: string[]
  bearer_methods_supported: ['header']
}

export function buildProtectedResourceMetadata(auth: AuthConfig): ProtectedResourceMetadata {
  return {
    resource: auth.resource,
    authorization_servers: [...auth.authorizationServers],
    // AUTH-11: offline_access is refused at validation, so it is never here.
    scopes_supported: [...auth.scopesSupported],
    // AUTH-12: the Authorization header only (no form body, no query).
    bearer_methods_supported: ['header'],
  }
}

// The serialized document and the paths it is served at (path-inserted, then root; AUTH-4).
export function metadataDocument(auth: AuthConfig): { paths: string[]; body: string } {
  return { paths: metadataPaths(auth.resource), body: JSON.stringify(buildProtectedResourceMetadata(auth)) }
}
