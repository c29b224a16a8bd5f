// Per-request _meta (META-1, META-2, PROG-1, LOG-5).
import t from 'tap'
import { LOG_LEVELS, META, getMeta, getProgressToken, hasModernMeta, isLevelAtLeast, isLogLevel, validateMeta } from '../../../src/protocol/meta.ts'

const V = META.protocolVersion
const C = META.clientCapabilities

t.test('validateMeta', async (t) => {
  const cases: Array<[string, Record<string, unknown> | undefined, { ok: boolean; version?: string; detail?: RegExp }]> = [
    ['both required keys', { _meta: { [V]: '2026-07-28', [C]: {} } }, { ok: true, version: '2026-07-28' }],
    ['any version string (support is checked later)', { _meta: { [V]: '9999-99-99', [C]: { sampling: {} } } }, { ok: true, version: '9999-99-99' }],
    ['no params', undefined, { ok: false, detail: /params\._meta is required/ }],
    ['params without _meta', {}, { ok: false, detail: /params\._meta is required/ }],
    ['_meta an array', { _meta: [] }, { ok: false, detail: /params\._meta is required/ }],
    ['_meta null', { _meta: null }, { ok: false, detail: /params\._meta is required/ }],
    ['no protocolVersion', { _meta: { [C]: {} } }, { ok: false, detail: /protocolVersion/ }],
    ['protocolVersion a number', { _meta: { [V]: 20260728, [C]: {} } }, { ok: false, detail: /protocolVersion/ }],
    ['no clientCapabilities', { _meta: { [V]: '2026-07-28' } }, { ok: false, detail: /clientCapabilities/ }],
    ['clientCapabilities a string', { _meta: { [V]: '2026-07-28', [C]: 'all' } }, { ok: false, detail: /clientCapabilities/ }],
    ['clientCapabilities an array', { _meta: { [V]: '2026-07-28', [C]: [] } }, { ok: false, detail: /clientCapabilities/ }],
  ]
  for (const [name, params, expected] of cases) {
    const result = validateMeta(params)
    t.equal(result.ok, expected.ok, `${name} → ${expected.ok ? 'ok' : 'rejected'}`)
    if (result.ok) t.equal(result.version, expected.version, `${name} → version ${expected.version}`)
    else t.match(result.detail, expected.detail!, `${name} → detail ${expected.detail!.source}`)
  }
})

t.test('hasModernMeta and getMeta', async (t) => {
  const cases: Array<[Record<string, unknown> | undefined, boolean]> = [
    [undefined, false],
    [{}, false],
    [{ _meta: {} }, false],
    [{ _meta: { [V]: '2025-11-25' } }, true],
    [{ _meta: 'x' }, false],
  ]
  for (const [params, expected] of cases) t.equal(hasModernMeta(params), expected, `${JSON.stringify(params)} → ${expected}`)
  t.same(getMeta({ _meta: { a: 1 } }), { a: 1 }, '{_meta:{a:1}} → {a:1}')
  t.equal(getMeta({ _meta: [1] }), undefined, '{_meta:[1]} → undefined')
})

t.test('getProgressToken', async (t) => {
  const cases: Array<[Record<string, unknown> | undefined, string | number | undefined]> = [
    [undefined, undefined],
    [{}, undefined],
    [{ progressToken: 'tok' }, 'tok'],
    [{ progressToken: '' }, ''],
    [{ progressToken: 0 }, 0],
    [{ progressToken: 7 }, 7],
    [{ progressToken: 1.5 }, undefined],
    [{ progressToken: null }, undefined],
    [{ progressToken: true }, undefined],
    [{ progressToken: { id: 1 } }, undefined],
  ]
  for (const [meta, expected] of cases) t.equal(getProgressToken(meta), expected, `${JSON.stringify(meta)} → ${JSON.stringify(expected)}`)
})

t.test('isLogLevel', async (t) => {
  for (const level of LOG_LEVELS) t.equal(isLogLevel(level), true, `${level} → true`)
  for (const value of ['warn', 'INFO', 'trace', '', 3, undefined]) t.equal(isLogLevel(value), false, `${JSON.stringify(value)} → false`)
})

t.test('isLevelAtLeast (LOG-5 order)', async (t) => {
  const cases: Array<[(typeof LOG_LEVELS)[number], (typeof LOG_LEVELS)[number], boolean]> = [
    ['info', 'info', true],
    ['error', 'info', true],
    ['debug', 'info', false],
    ['emergency', 'debug', true],
    ['notice', 'warning', false],
    ['warning', 'notice', true],
  ]
  for (const [level, threshold, expected] of cases) t.equal(isLevelAtLeast(level, threshold), expected, `${level} at threshold ${threshold} → ${expected}`)
})
