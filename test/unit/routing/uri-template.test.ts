// Resource-template matching for resources/read routing (RFC 6570 subset).
import t from 'tap'
import { UriTemplateMatcher, compileUriTemplate } from '../../../src/routing/uri-template.ts'

const cases: Array<[string, string, boolean]> = [
  ['fixture://alpha/items/{id}', 'fixture://alpha/items/7', true],
  ['fixture://alpha/items/{id}', 'fixture://alpha/items/abc-def', true],
  ['fixture://alpha/items/{id}', 'fixture://alpha/items/7/8', false],
  ['fixture://alpha/items/{id}', 'fixture://alpha/items/7?x=1', false],
  ['fixture://alpha/items/{id}', 'fixture://beta/items/7', false],
  ['fixture://alpha/items/{id}', 'prefix-fixture://alpha/items/7', false],
  ['file:///{+path}', 'file:///etc/hosts', true],
  ['file:///{+path}', 'file:///a/b/c?x#y', true],
  ['file:///{path}', 'file:///a/b', false],
  ['http://x/search{?q,lang}', 'http://x/search?q=a&lang=b', true],
  ['http://x/search{?q,lang}', 'http://x/search', true],
  ['http://x/search{?q}{&page}', 'http://x/search?q=a&page=2', true],
  ['http://x/doc{#section}', 'http://x/doc#intro', true],
  ['http://x{/path}', 'http://x/a/b', true],
  ['http://x{/path}', 'http://x', true],
  ['a.b/{x}', 'aXb/1', false],
  ['a.b/{x}', 'a.b/1', true],
  ['x://{a}{b}', 'x://ab', true],
  ['plain://no/vars', 'plain://no/vars', true],
  ['plain://no/vars', 'plain://no/vars/', false],
  ['(weird)[chars]*/{id}', '(weird)[chars]*/1', true],
]

t.test('compileUriTemplate', async (t) => {
  for (const [template, uri, expected] of cases) t.equal(compileUriTemplate(template).test(uri), expected, `${template} vs ${uri} → ${expected ? 'match' : 'no match'}`)
})

t.test('UriTemplateMatcher → same answers, compiled once per template', async (t) => {
  const matcher = new UriTemplateMatcher()
  for (const [template, uri, expected] of cases) {
    t.equal(matcher.matches(template, uri), expected, `${template} vs ${uri} → ${expected ? 'match' : 'no match'} (first)`)
    t.equal(matcher.matches(template, uri), expected, `${template} vs ${uri} → ${expected ? 'match' : 'no match'} (cached)`)
  }
})

t.test('UriTemplateMatcher past its cache limit → still correct', async (t) => {
  const matcher = new UriTemplateMatcher()
  for (let i = 0; i < 1_005; i++) matcher.matches(`t${i}://{x}`, `t${i}://v`)
  t.equal(matcher.matches('t0://{x}', 't0://v'), true, 'template evicted, recompiled → match')
  t.equal(matcher.matches('t1004://{x}', 't1004://v/w'), false, 'recent template → no match for two segments')
})

t.test('compileUriTemplate → anchored RegExp', async (t) => {
  const regex = compileUriTemplate('s://{a}')
  t.ok(regex.source.startsWith('^') && regex.source.endsWith('$'), `${regex.source} → anchored`)
})
