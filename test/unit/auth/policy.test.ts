// Policy: globs over names and URIs → scopes; list filtering; every needed scope in one challenge;
// scope hierarchy (AUTH-10).
import t from 'tap'
import { compileGlob, Policy } from '../../../src/auth/policy.ts'
import { Principal } from '../../../src/auth/principal.ts'

const user = (...scopes: string[]): Principal => new Principal({ kind: 'user', subject: 'alice', clientId: 'app', scopes })
const RULES = [
  { tools: ['admin__*'], prompts: [], resources: [], scopes: ['mcp:admin'] },
  { tools: [], prompts: ['admin__*'], resources: ['file:///secrets/*'], scopes: ['mcp:admin'] },
  { tools: ['admin__drop*', 'ops__*'], prompts: [], resources: [], scopes: ['mcp:ops'] },
]

t.test('compileGlob', async (t) => {
  const cases: Array<[string, string, boolean]> = [
    ['admin__*', 'admin__reset', true], ['admin__*', 'admin__', true], ['admin__*', 'xadmin__reset', false],
    ['a.b', 'a.b', true], ['a.b', 'axb', false], ['file:///secrets/*', 'file:///secrets/a/b', true],
    ['*', 'anything', true], ['x?', 'x?', true], ['x?', 'xy', false], ['*__get', 'files__get', true], ['*__get', 'files__getx', false],
  ]
  for (const [glob, name, expected] of cases) t.equal(compileGlob(glob).test(name), expected, `${glob} vs ${name} → ${expected}`)
})

t.test('ruleScopes and missingFor', async (t) => {
  const policy = new Policy(RULES, { requiredScopes: ['mcp'], hierarchy: {} })
  const cases: Array<[string, Principal, 'tools' | 'prompts' | 'resources', string, string[] | undefined]> = [
    ['plain tool, mcp', user('mcp'), 'tools', 'files__read', undefined],
    ['admin tool, mcp', user('mcp'), 'tools', 'admin__reset', ['mcp', 'mcp:admin']],
    ['admin tool, mcp + mcp:admin', user('mcp', 'mcp:admin'), 'tools', 'admin__reset', undefined],
    ['two rules match → both scopes needed', user('mcp', 'mcp:admin'), 'tools', 'admin__drop_all', ['mcp', 'mcp:admin', 'mcp:ops']],
    ['two rules, all scopes', user('mcp', 'mcp:admin', 'mcp:ops'), 'tools', 'admin__drop_all', undefined],
    ['admin prompt, mcp', user('mcp'), 'prompts', 'admin__p', ['mcp', 'mcp:admin']],
    ['secret resource, mcp', user('mcp'), 'resources', 'file:///secrets/key', ['mcp', 'mcp:admin']],
    ['other resource, mcp', user('mcp'), 'resources', 'file:///public/a', undefined],
    ['tool pattern does not apply to prompts', user('mcp'), 'prompts', 'ops__x', undefined],
  ]
  for (const [name, principal, kind, item, expected] of cases) t.same(policy.missingFor(principal, kind, item), expected, `${name} → ${JSON.stringify(expected)}`)
})

t.test('filter keeps order and only what the caller may use', async (t) => {
  const policy = new Policy(RULES, { requiredScopes: ['mcp'], hierarchy: {} })
  const tools = ['a__x', 'admin__reset', 'b__y', 'ops__restart'].map((name) => ({ name }))
  t.same(policy.filter(user('mcp'), 'tools', tools, (x) => x.name).map((x) => x.name), ['a__x', 'b__y'], 'mcp → plain tools')
  t.same(policy.filter(user('mcp', 'mcp:admin'), 'tools', tools, (x) => x.name).map((x) => x.name), ['a__x', 'admin__reset', 'b__y'], 'admin → admin tools too')
  t.same(policy.filter(user('mcp', 'mcp:admin', 'mcp:ops'), 'tools', tools, (x) => x.name).length, 4, 'admin + ops → everything')
  t.ok(policy.covers('tools') && policy.covers('resources'), 'tools and resources governed')
  const none = new Policy([], { requiredScopes: [], hierarchy: {} })
  t.notOk(none.covers('tools'), 'no rules → nothing governed')
  t.same(none.filter(user(), 'tools', tools, (x) => x.name), tools, 'no rules → list unchanged')
})

t.test('scope hierarchy: a broader scope covers narrower ones (AUTH-10)', async (t) => {
  const policy = new Policy(RULES, { requiredScopes: ['mcp'], hierarchy: { 'mcp:root': ['mcp:admin', 'mcp:ops'], 'mcp:admin': ['mcp'] } })
  t.ok(policy.hasScopes(user('mcp:admin'), ['mcp']), 'mcp:admin covers mcp')
  t.equal(policy.missingFor(user('mcp:root'), 'tools', 'admin__drop_all'), undefined, 'mcp:root covers admin, ops and (transitively) mcp')
  t.notOk(policy.hasScopes(user('mcp'), ['mcp:admin']), 'mcp does not cover mcp:admin')
  const cyclic = new Policy([], { requiredScopes: [], hierarchy: { a: ['b'], b: ['a'] } })
  t.same([...cyclic.granted(user('a'))].sort(), ['a', 'b'], 'a cycle terminates')
})
