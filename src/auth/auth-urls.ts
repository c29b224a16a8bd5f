// URL rules for authentication settings, and where the Protected Resource Metadata lives
// (RFC 9728 §3.1, AUTH-4). Pure.

const WELL_KNOWN_PRM = '/.well-known/oauth-protected-resource'

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase()
  return host === 'localhost' || host === '[::1]' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host)
}

// Why `value` cannot be used as an endpoint the gateway sends secrets to or trusts keys from, or
// undefined when it can: https, or http only toward a loopback host; no fragment.
export function checkEndpointUrl(value: string): string | undefined {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return 'must be an absolute URL'
  }
  if (url.hash !== '' || value.includes('#')) return 'must not have a fragment'
  if (url.protocol === 'https:') return undefined
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return undefined
  return 'must be https:// (http:// only for a loopback host)'
}

// The canonical resource URI (RFC 8707 §2): the endpoint rules, and no query either.
export function checkResourceUrl(value: string): string | undefined {
  const problem = checkEndpointUrl(value)
  if (problem !== undefined) return problem
  if (new URL(value).search !== '' || value.includes('?')) return 'must not have a query'
  return undefined
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
