// Mcp-Param-{Name} headers (HDR-7..11): reading x-mcp-header annotations from a tool's inputSchema,
// checking a client's headers against its arguments, building the backend's headers.
import t from 'tap'
import {
  buildParamHeaders,
  checkParamHeaders,
  readHeaderParams,
  type HeaderParam,
  type HeaderParamsResult,
} from '../../../src/protocol/param-headers.ts'

const b64 = (text: string): string => `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`

// A tool whose inputSchema has exactly these properties.
const tool = (properties: Record<string, unknown>): Record<string, unknown> => ({ name: 'weather', inputSchema: { type: 'object', properties } })
const annotated = (type: string, header: unknown): Record<string, unknown> => ({ type, 'x-mcp-header': header })

const REGION: HeaderParam = { header: 'region', path: ['region'], type: 'string' }
const COUNT: HeaderParam = { header: 'count', path: ['count'], type: 'integer' }
const DRY_RUN: HeaderParam = { header: 'dry-run', path: ['dryRun'], type: 'boolean' }
const CITY: HeaderParam = { header: 'city', path: ['location', 'city'], type: 'string' }

t.test('readHeaderParams: a tool definition → its header params, or why it must be dropped (HDR-11)', async (t) => {
  const cases: Array<[string, Record<string, unknown>, HeaderParamsResult]> = [
    ['no inputSchema → no params', { name: 'bare' }, { ok: true, params: [] }],
    ['inputSchema not an object → no params', { name: 'odd', inputSchema: 'object' }, { ok: true, params: [] }],
    ['no properties → no params', { name: 'empty', inputSchema: { type: 'object' } }, { ok: true, params: [] }],
    ['nothing annotated → no params', tool({ region: { type: 'string' } }), { ok: true, params: [] }],
    ['a property that is not a schema object → skipped', tool({ region: true }), { ok: true, params: [] }],
    ['string property "Region" → header "region" (lower-cased), path [region]', tool({ region: annotated('string', 'Region') }), { ok: true, params: [REGION] }],
    ['integer and boolean properties → both, in schema order',
      tool({ count: annotated('integer', 'Count'), dryRun: annotated('boolean', 'Dry-Run') }), { ok: true, params: [COUNT, DRY_RUN] }],
    ['nested object reached through properties only → path [location, city]',
      tool({ location: { type: 'object', properties: { city: annotated('string', 'City') } } }), { ok: true, params: [CITY] }],
    ['token characters !#$%&\'*+.^_`|~ → accepted', tool({ a: annotated('string', "x!#$%&'*+.^_`|~1") }),
      { ok: true, params: [{ header: "x!#$%&'*+.^_`|~1", path: ['a'], type: 'string' }] }],
    ['type number → dropped', tool({ ratio: annotated('number', 'Ratio') }), { ok: false, problem: 'x-mcp-header on ratio of type number' }],
    ['type object → dropped', tool({ where: annotated('object', 'Where') }), { ok: false, problem: 'x-mcp-header on where of type object' }],
    ['no type → dropped', tool({ any: { 'x-mcp-header': 'Any' } }), { ok: false, problem: 'x-mcp-header on any of type undefined' }],
    ['empty name → dropped', tool({ region: annotated('string', '') }), { ok: false, problem: 'invalid x-mcp-header on region' }],
    ['name with a space → dropped', tool({ region: annotated('string', 'My Region') }), { ok: false, problem: 'invalid x-mcp-header on region' }],
    ['name with CR LF → dropped', tool({ region: annotated('string', 'Region\r\nX-Evil') }), { ok: false, problem: 'invalid x-mcp-header on region' }],
    ['name with a colon → dropped', tool({ region: annotated('string', 'Region:') }), { ok: false, problem: 'invalid x-mcp-header on region' }],
    ['non-ASCII name → dropped', tool({ region: annotated('string', 'Région') }), { ok: false, problem: 'invalid x-mcp-header on region' }],
    ['name not a string → dropped', tool({ region: annotated('string', 42) }), { ok: false, problem: 'invalid x-mcp-header on region' }],
    ['invalid name on a nested property → the problem names its path',
      tool({ location: { type: 'object', properties: { city: annotated('string', 'bad name') } } }), { ok: false, problem: 'invalid x-mcp-header on location.city' }],
    ['"Region" and "REGION" → dropped (unique case-insensitively)',
      tool({ a: annotated('string', 'Region'), b: annotated('string', 'REGION') }), { ok: false, problem: 'duplicate x-mcp-header region' }],
    ['two problems → both named, joined by "; "',
      tool({ a: annotated('number', 'A'), b: annotated('string', '') }), { ok: false, problem: 'x-mcp-header on a of type number; invalid x-mcp-header on b' }],
  ]
  for (const [name, definition, expected] of cases) t.same(readHeaderParams(definition), expected, name)
})

// HDR-11: "An x-mcp-header annotation anywhere else makes the annotation — and thus the tool
// definition — invalid." Only a chain of `properties` keys reaches an annotation; values of data
// keywords (default, const, examples) and a property merely named x-mcp-header are not annotations.
t.test('readHeaderParams: annotation not statically reachable → dropped (HDR-11)', async (t) => {
  const UNREACHABLE: HeaderParamsResult = { ok: false, problem: 'x-mcp-header not reachable through properties alone' }
  const schema = (inputSchema: Record<string, unknown>): Record<string, unknown> => ({ name: 'weather', inputSchema })
  const cases: Array<[string, Record<string, unknown>, HeaderParamsResult]> = [
    ['under items → dropped', tool({ regions: { type: 'array', items: annotated('string', 'Region') } }), UNREACHABLE],
    ['under prefixItems → dropped', tool({ pair: { type: 'array', prefixItems: [{ type: 'string' }, annotated('string', 'Second')] } }), UNREACHABLE],
    ['under oneOf → dropped', tool({ region: { oneOf: [annotated('string', 'Region')] } }), UNREACHABLE],
    ['on a property of an anyOf branch → dropped', tool({ where: { anyOf: [{ type: 'object', properties: { city: annotated('string', 'City') } }] } }), UNREACHABLE],
    ['under if/then → dropped', tool({ region: { type: 'string', if: { type: 'string' }, then: annotated('string', 'Region') } }), UNREACHABLE],
    ['under additionalProperties → dropped', tool({ tags: { type: 'object', additionalProperties: annotated('string', 'Tag') } }), UNREACHABLE],
    ['under patternProperties → dropped', tool({ tags: { type: 'object', patternProperties: { '^t': annotated('string', 'Tag') } } }), UNREACHABLE],
    ['under $defs (reached by $ref) → dropped',
      schema({ type: 'object', $defs: { r: annotated('string', 'Region') }, properties: { region: { $ref: '#/$defs/r' } } }), UNREACHABLE],
    ['on the inputSchema itself → dropped', schema({ type: 'object', 'x-mcp-header': 'Root', properties: {} }), { ok: false, problem: 'x-mcp-header on the inputSchema itself' }],
    ['a property named x-mcp-header → kept, not an annotation', tool({ 'x-mcp-header': { type: 'string' } }), { ok: true, params: [] }],
    ['an annotation-shaped default value → kept, data', tool({ opts: { type: 'object', default: { 'x-mcp-header': 'X' } } }), { ok: true, params: [] }],
    ['a valid annotation beside items without one → kept',
      tool({ region: annotated('string', 'Region'), list: { type: 'array', items: { type: 'string' } } }), { ok: true, params: [REGION] }],
  ]
  for (const [name, definition, expected] of cases) t.same(readHeaderParams(definition), expected, name)
})

t.test('checkParamHeaders: annotated arguments and the headers sent → undefined when valid, else the mismatch (HDR-7, HDR-8)', async (t) => {
  const sent = (entries: Record<string, string> = {}): ReadonlyMap<string, string> => new Map(Object.entries(entries))
  const cases: Array<[string, HeaderParam[], unknown, ReadonlyMap<string, string>, string | undefined]> = [
    ['no annotated params, no headers → valid', [], { region: 'eu' }, sent(), undefined],
    ['value "eu", header "eu" → valid', [REGION], { region: 'eu' }, sent({ region: 'eu' }), undefined],
    ['value "eu", no header → missing', [REGION], { region: 'eu' }, sent(), 'missing mcp-param-region header'],
    ['value "eu", header "us" → mismatch', [REGION], { region: 'eu' }, sent({ region: 'us' }), 'mcp-param-region header does not match the arguments'],
    ['value "eu", header "EU" → mismatch (values are case-sensitive)', [REGION], { region: 'eu' }, sent({ region: 'EU' }), 'mcp-param-region header does not match the arguments'],
    ['value "Zürich", Base64 header of "Zürich" → valid (decoded first)', [REGION], { region: 'Zürich' }, sent({ region: b64('Zürich') }), undefined],
    ['value "eu", Base64 header of "eu" → valid', [REGION], { region: 'eu' }, sent({ region: b64('eu') }), undefined],
    ['value "eu", broken Base64 header → invalid characters', [REGION], { region: 'eu' }, sent({ region: '=?base64?@@?=' }), 'mcp-param-region header has invalid characters'],
    ['value "eu", header with a control character → invalid characters', [REGION], { region: 'eu' }, sent({ region: 'e\tu' }), 'mcp-param-region header has invalid characters'],
    ['value null, no header → valid', [REGION], { region: null }, sent(), undefined],
    ['value absent, no header → valid', [REGION], {}, sent(), undefined],
    ['no arguments at all, no header → valid', [REGION], undefined, sent(), undefined],
    ['value null, header sent → refused', [REGION], { region: null }, sent({ region: 'eu' }), 'mcp-param-region header sent without a value in arguments'],
    ['value absent, header sent → refused', [REGION], {}, sent({ region: 'eu' }), 'mcp-param-region header sent without a value in arguments'],
    ['integer 42, header "42" → valid', [COUNT], { count: 42 }, sent({ count: '42' }), undefined],
    ['integer 42, header "42.0" → valid (compared numerically, HDR-6)', [COUNT], { count: 42 }, sent({ count: '42.0' }), undefined],
    ['integer 42, header "43" → mismatch', [COUNT], { count: 42 }, sent({ count: '43' }), 'mcp-param-count header does not match the arguments'],
    ['integer 0, header "" (Base64 of nothing) → mismatch', [COUNT], { count: 0 }, sent({ count: b64('') }), 'mcp-param-count header does not match the arguments'],
    ['boolean true, header "true" → valid', [DRY_RUN], { dryRun: true }, sent({ 'dry-run': 'true' }), undefined],
    ['boolean true, header "TRUE" → mismatch', [DRY_RUN], { dryRun: true }, sent({ 'dry-run': 'TRUE' }), 'mcp-param-dry-run header does not match the arguments'],
    ['boolean false, header "0" → mismatch', [DRY_RUN], { dryRun: false }, sent({ 'dry-run': '0' }), 'mcp-param-dry-run header does not match the arguments'],
    ['nested value, header → valid', [CITY], { location: { city: 'Oslo' } }, sent({ city: 'Oslo' }), undefined],
    ['nested parent not an object, no header → valid', [CITY], { location: 'Oslo' }, sent(), undefined],
    ['value an object, header sent → mismatch', [REGION], { region: { name: 'eu' } }, sent({ region: 'eu' }), 'mcp-param-region header does not match the arguments'],
    ['unannotated header alongside → ignored', [REGION], { region: 'eu' }, sent({ region: 'eu', trace: 'x' }), undefined],
    ['first bad param of two → its problem', [REGION, COUNT], { region: 'eu', count: 1 }, sent({ region: 'eu' }), 'missing mcp-param-count header'],
  ]
  for (const [name, params, args, headers, expected] of cases) t.equal(checkParamHeaders(params, args, headers), expected, name)
})

t.test('buildParamHeaders: annotated arguments and the headers sent → the backend\'s Mcp-Param-* headers (HDR-9, HDR-10)', async (t) => {
  const sent = (entries: Record<string, string> = {}): ReadonlyMap<string, string> => new Map(Object.entries(entries))
  const cases: Array<[string, HeaderParam[], unknown, ReadonlyMap<string, string>, Record<string, string>]> = [
    ['nothing annotated, nothing sent → no headers', [], { region: 'eu' }, sent(), {}],
    ['value "eu" → mcp-param-region: eu', [REGION], { region: 'eu' }, sent({ region: 'eu' }), { 'mcp-param-region': 'eu' }],
    ['value "Zürich" → Base64 sentinel', [REGION], { region: 'Zürich' }, sent({ region: b64('Zürich') }), { 'mcp-param-region': b64('Zürich') }],
    ['value " padded " → Base64 sentinel (edge whitespace)', [REGION], { region: ' padded ' }, sent(), { 'mcp-param-region': b64(' padded ') }],
    ['client sent Base64 of a plain value → rebuilt plain from the body', [REGION], { region: 'eu' }, sent({ region: b64('eu') }), { 'mcp-param-region': 'eu' }],
    ['integer 42 → "42"', [COUNT], { count: 42 }, sent(), { 'mcp-param-count': '42' }],
    ['boolean false → "false"', [DRY_RUN], { dryRun: false }, sent(), { 'mcp-param-dry-run': 'false' }],
    ['nested value → from its exact path', [CITY], { location: { city: 'Oslo' } }, sent(), { 'mcp-param-city': 'Oslo' }],
    ['value absent → no header', [REGION], {}, sent(), {}],
    ['value null → no header', [REGION], { region: null }, sent(), {}],
    ['value an object → no header', [REGION], { region: { name: 'eu' } }, sent(), {}],
    ['unrecognized header → copied unchanged (HDR-9)', [], {}, sent({ trace: '=?base64?eA==?=' }), { 'mcp-param-trace': '=?base64?eA==?=' }],
    ['undeclared credential-looking headers → never forwarded (AUTH-8)', [], {}, sent({ authorization: 'Bearer x', cookie: 'c=1', 'proxy-authorization': 'Basic x', 'x-api-key': 'k', 'access-token': 't', region: 'eu' }), { 'mcp-param-region': 'eu' }],
    ['a declared one is still rebuilt from the arguments', [{ header: 'session', path: ['session'], type: 'string' }], { session: 's1' }, sent({ session: 's1' }), { 'mcp-param-session': 's1' }],
    ['recognized and unrecognized → both', [REGION], { region: 'eu' }, sent({ region: 'eu', trace: 't-1' }), { 'mcp-param-trace': 't-1', 'mcp-param-region': 'eu' }],
  ]
  for (const [name, params, args, headers, expected] of cases) t.same(buildParamHeaders(params, args, headers), expected, name)
})
