// WWW-Authenticate challenges (RFC 6750 §3, RFC 9728 §5.1) and the refusals that carry them.
import t from 'tap'
import { Challenger, formatChallenge } from '../../../src/auth/challenge.ts'

const PRM = 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp'

t.test('formatChallenge', async (t) => {
  const cases: Array<[string, Parameters<typeof formatChallenge>[0], string]> = [
    ['no token', { resourceMetadata: PRM, scopes: ['mcp'] }, `Bearer resource_metadata="${PRM}", scope="mcp"`],
    ['no scopes', { resourceMetadata: PRM, scopes: [] }, `Bearer resource_metadata="${PRM}"`],
    ['invalid token', { resourceMetadata: PRM, scopes: ['mcp'], error: 'invalid_token', description: 'the token has expired' },
      `Bearer resource_metadata="${PRM}", scope="mcp", error="invalid_token", error_description="the token has expired"`],
    ['several scopes', { resourceMetadata: PRM, scopes: ['mcp', 'mcp:admin'], error: 'insufficient_scope' },
      `Bearer resource_metadata="${PRM}", scope="mcp mcp:admin", error="insufficient_scope"`],
    ['description with quote, backslash, newline', { resourceMetadata: PRM, scopes: [], description: 'a "b"\\c\nd' },
      `Bearer resource_metadata="${PRM}", error_description="a  b  c d"`],
  ]
  for (const [name, params, expected] of cases) t.equal(formatChallenge(params), expected, `${name} → ${expected}`)
})

t.test('Challenger refusals', async (t) => {
  const c = new Challenger({ resourceMetadata: PRM, requiredScopes: ['mcp'] })
  const cases: Array<[string, ReturnType<Challenger['required']>, number, string, RegExp | undefined]> = [
    ['required', c.required(), 401, 'MCP_GATEWAY_AUTH_REQUIRED', /^Bearer resource_metadata="[^"]+", scope="mcp"$/],
    ['invalid token', c.invalidToken('the token has expired'), 401, 'MCP_GATEWAY_AUTH_INVALID_TOKEN', /scope="mcp", error="invalid_token", error_description="the token has expired"$/],
    ['token in query', c.tokenInQuery(), 400, 'MCP_GATEWAY_AUTH_TOKEN_IN_QUERY', /error="invalid_request"/],
    ['insufficient scope', c.insufficientScope(['mcp', 'mcp:admin'], 'x needs more'), 403, 'MCP_GATEWAY_AUTH_INSUFFICIENT_SCOPE', /scope="mcp mcp:admin", error="insufficient_scope"/],
    ['unavailable', c.unavailable('keys unreachable'), 503, 'MCP_GATEWAY_AUTH_UNAVAILABLE', undefined],
  ]
  for (const [name, err, status, code, header] of cases) {
    t.equal(err.httpStatus, status, `${name} → HTTP ${status}`)
    t.equal(err.code, code, `${name} → ${code}`)
    if (header) t.match(err.headers?.['www-authenticate'], header, `${name} → WWW-Authenticate ${header}`)
    else t.equal(err.headers?.['www-authenticate'], undefined, `${name} → no challenge`)
  }
  t.equal(c.unavailable('x').headers?.['retry-after'], '5', 'unavailable → Retry-After')
  t.notOk(c.required().headers?.['www-authenticate']?.includes('error='), 'required → no error attribute (RFC 6750 §3.1)')
})
