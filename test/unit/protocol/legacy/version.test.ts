// Version negotiation for 2025-11-25-era clients (LEGACY-2).
import t from 'tap'
import { LEGACY_CLIENT_VERSIONS, isLegacyVersion, negotiateLegacyVersion } from '../../../../src/protocol/legacy/version.ts'

t.test('negotiateLegacyVersion', async (t) => {
  const cases: Array<[unknown, string]> = [
    ['2025-11-25', '2025-11-25'],
    ['2025-06-18', '2025-06-18'],
    ['2025-03-26', '2025-03-26'],
    ['2024-11-05', '2025-11-25'],
    ['2026-07-28', '2025-11-25'],
    ['9999-99-99', '2025-11-25'],
    ['', '2025-11-25'],
    [undefined, '2025-11-25'],
    [20251125, '2025-11-25'],
  ]
  for (const [requested, expected] of cases) t.equal(negotiateLegacyVersion(requested), expected, `${JSON.stringify(requested)} → ${expected}`)
})

t.test('isLegacyVersion', async (t) => {
  const cases: Array<[unknown, boolean]> = [
    ['2025-11-25', true], ['2025-06-18', true], ['2025-03-26', true],
    ['2026-07-28', false], ['2025-11-25 ', false], [undefined, false], [['2025-11-25'], false],
  ]
  for (const [value, expected] of cases) t.equal(isLegacyVersion(value), expected, `${JSON.stringify(value)} → ${expected}`)
  t.same(LEGACY_CLIENT_VERSIONS, ['2025-11-25', '2025-06-18', '2025-03-26'], 'newest first')
})
