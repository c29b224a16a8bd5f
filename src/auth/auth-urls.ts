// Loopback hosts, and where the Protected Resource Metadata lives
// (RFC 9728 §3.1, AUTH-4). Pure.

const WELL_KNOWN_PRM = '/.well-known/oauth-protected-resource'

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase()
  return host === 'localhost' || host === '[::1]' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host)
}

// The resource's path without a trailing slash ("" for the origin itself).
function resourcePath(resource: string): string {
  const path = new URL(resource).pathname
  return path === '/' ? '' : path.replace(/\/$/, '')
}

// Both well-known paths the document is served at: path-inserted first, then the root (AUTH-4).
export function metadataPaths(resource: string): string[] {
  const path = resourcePath(resource)
  return path === '' ? [WELL_KNOWN_PRM] : [WELL_KNOWN_PRM + path, WELL_KNOWN_PRM]
}

// The URL a 401 names in `resource_metadata`: always derived from the configured resource, never
// from the request's Host (a client must not be pointed at a metadata document an attacker names).
export function metadataUrl(resource: string): string {
  const url = new URL(resource)
  return `${url.origin}${metadataPaths(resource)[0]}`
}
