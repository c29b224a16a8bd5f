// Host and Origin allow-lists against DNS rebinding (SEC-1, SEC-2). Pure.

export const LOOPBACK_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '[::1]']

// "Host: example.com:8080" → "example.com"; "[::1]:80" → "[::1]".
export function hostName(hostHeader: string): string {
  const host = hostHeader.trim().toLowerCase()
  if (host.startsWith('[')) {
    const end = host.indexOf(']')
    return end === -1 ? host : host.slice(0, end + 1)
  }
  const colon = host.indexOf(':')
  return colon === -1 ? host : host.slice(0, colon)
}

function matches(allowed: readonly string[], value: string): boolean {
  return allowed.includes('*') || allowed.includes(value)
}

// RFC 9112 §3.2 / RFC 3986 §3.2.2: Host = uri-host [ ":" port ], where uri-host is an IP literal
// in brackets or a name of letters, digits, ".", "_", "~", "-" (percent-encoding and sub-delims,
// which no allow-list entry uses, are refused too). So "localhost:80@evil.example",
// "[::1]evil.example", "a, b" (two Host headers, joined by the server) and "" are not hosts.
const STRICT_HOST = /^(?:\[[0-9a-f:.]{2,45}\]|[a-z0-9._~-]{1,253})(?::[0-9]{1,5})?$/

// The Host value, lower-cased, or undefined when it is not a well-formed uri-host[:port].
export function parseHost(value: string | undefined): string | undefined {
  if (value === undefined) return undefined
  const host = value.toLowerCase()
  return STRICT_HOST.test(host) ? host : undefined
}

// The authority of an absolute-form request target ("http://a.example:8080/mcp" → "a.example:8080"),
// which wins over Host (RFC 9112 §3.2.2); undefined for the usual origin-form ("/mcp").
export function targetAuthority(target: string): string | undefined {
  if (target.charCodeAt(0) === 47 /* "/" */) return undefined
  const start = target.indexOf('://')
  if (start === -1) return ''
  const rest = target.slice(start + 3)
  const end = rest.search(/[/?#]/)
  return end === -1 ? rest : rest.slice(0, end)
}

// An entry may name a host ("api.example.com") or host:port ("api.example.com:443").
export function isHostAllowed(allowed: readonly string[], hostHeader: string | undefined): boolean {
  if (hostHeader === undefined) return false
  const full = hostHeader.trim().toLowerCase()
  return matches(allowed, full) || matches(allowed, hostName(full))
}

// SEC-2: no Origin (non-browser client) is allowed. An entry is a full origin
// ("https://app.example.com") or a bare host name, which allows that host on any scheme/port.
export function isOriginAllowed(allowed: readonly string[], origin: string | undefined): boolean {
  if (origin === undefined) return true
  let url: URL
  try {
    url = new URL(origin)
  } catch {
    return false
  }
  const host = url.hostname.toLowerCase()
  return matches(allowed, url.origin.toLowerCase()) || matches(allowed, host)
}
