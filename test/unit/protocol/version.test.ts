// Versions served to clients (VER-*, DISC-5).
import t from 'tap'
import { LEGACY_VERSION, MODERN_VERSION, MODERN_VERSIONS, isSupportedModernVersion } from '../../../src/protocol/version.ts'

t.test('isSupportedModernVersion', async (t) => {
  const cases: Array<[string, boolean]> = [
    ['2026-07-28', true],
    ['2025-11-25', false],
    ['2025-06-18', false],
    ['9999-99-99', false],
    ['2026-07-28 ', false],
    ['', false],
  ]
  for (const [version, expected] of cases) t.equal(isSupportedModernVersion(version), expected, `${JSON.stringify(version)} → ${expected ? 'supported' : 'unsupported'}`)
})

t.test('constants', async (t) => {
  t.equal(MODERN_VERSION, '2026-07-28', 'MODERN_VERSION → 2026-07-28')
  t.equal(LEGACY_VERSION, '2025-11-25', 'LEGACY_VERSION → 2025-11-25')
  t.same(MODERN_VERSIONS, ['2026-07-28'], 'MODERN_VERSIONS → [2026-07-28]')
})
