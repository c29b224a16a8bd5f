// Protected Resource Metadata (RFC 9728): the document, its two well-known paths, the URL a 401 names.
import t from 'tap'
import { settingsFor } from '../../helpers/auth-settings.ts'
import { metadataPaths, metadataUrl } from '../../../src/auth/auth-urls.ts'
import { buildProtectedResourceMetadata } from '../../../src/auth/prm.ts'

t.test('paths and URL derive from the resource', async (t) => {
  const cases: Array<[string, string[], string]> = [
    ['https://mcp.example.com/mcp', ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource'],
      'https://mcp.example.com/.well-known/oauth-protected-resource/mcp'],
    ['https://mcp.example.com/', ['/.well-known/oauth-protected-resource'], 'https://mcp.example.com/.well-known/oauth-protected-resource'],
    ['https://mcp.example.com', ['/.well-known/oauth-protected-resource'], 'https://mcp.example.com/.well-known/oauth-protected-resource'],
    ['https://x.example:8443/tenant/mcp/', ['/.well-known/oauth-protected-resource/tenant/mcp', '/.well-known/oauth-protected-resource'],
      'https://x.example:8443/.well-known/oauth-protected-resource/tenant/mcp'],
    ['HTTPS://MCP.Example.com/mcp', ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource'],
      'https://mcp.example.com/.well-known/oauth-protected-resource/mcp'],
  ]
  for (const [resource, paths, url] of cases) {
    t.same(metadataPaths(resource), paths, `${resource} → ${paths.join(', ')}`)
    t.equal(metadataUrl(resource), url, `${resource} → ${url}`)
  }
})

t.test('the document', async (t) => {
  const settings = settingsFor({
    auth: { resource: 'https://mcp.example.com/mcp', authorizationServers: ['https://login.example.com'], jwksUri: 'https://login.example.com/jwks', requiredScopes: ['mcp'] },
    policy: [{ tools: ['admin__*'], scopes: ['mcp:admin'] }],
  })
  t.same(buildProtectedResourceMetadata(settings.auth!), {
    resource: 'https://mcp.example.com/mcp',
    authorization_servers: ['https://login.example.com'],
    scopes_supported: ['mcp', 'mcp:admin'],
    bearer_methods_supported: ['header'],
  })
})
