// Gateway names: namespace + separator + backend name (FEAT-1, FEAT-2).
import t from 'tap'
import { MAX_NAME_LENGTH, describeNameProblem, toGatewayLogger, toGatewayName } from '../../../src/routing/names.ts'

t.test('toGatewayName', async (t) => {
  const cases: Array<[string, string, string, string]> = [
    ['', '__', 'echo', 'echo'],
    ['a', '__', 'echo', 'a__echo'],
    ['search', '.', 'find', 'search.find'],
    ['ns', '__', 'with__sep', 'ns__with__sep'],
  ]
  for (const [namespace, separator, name, expected] of cases) {
    t.equal(toGatewayName(namespace, separator, name), expected, `(${JSON.stringify(namespace)}, ${JSON.stringify(separator)}, ${name}) → ${expected}`)
  }
})

t.test('describeNameProblem', async (t) => {
  const cases: Array<[string, RegExp | undefined]> = [
    ['echo', undefined],
    ['a__echo', undefined],
    ['A.b-c_D9', undefined],
    ['x'.repeat(MAX_NAME_LENGTH), undefined],
    ['x'.repeat(MAX_NAME_LENGTH + 1), /length/],
    ['', /length/],
    ['has space', /characters/],
    ['écho', /characters/],
    ['a/b', /characters/],
    ['a:b', /characters/],
  ]
  for (const [name, expected] of cases) {
    const label = name.length > 20 ? `${name.length} chars` : JSON.stringify(name)
    if (expected === undefined) t.equal(describeNameProblem(name), undefined, `${label} → fine`)
    else t.match(describeNameProblem(name), expected, `${label} → ${expected.source} problem`)
  }
  t.equal(MAX_NAME_LENGTH, 128, 'MAX_NAME_LENGTH → 128 (FEAT-1)')
})

t.test('toGatewayLogger: a log outside any request names its backend', async (t) => {
  const cases: Array<[string, unknown, string | undefined]> = [
    ['ev', 'db', 'ev__db'],
    ['ev', undefined, 'ev'],
    ['ev', '', 'ev'],
    ['ev', 42, 'ev'],
    ['', 'db', 'db'],
    ['', undefined, undefined],
  ]
  for (const [namespace, logger, expected] of cases) {
    t.equal(toGatewayLogger(namespace, '__', logger), expected, `(${JSON.stringify(namespace)}, ${JSON.stringify(logger)}) → ${expected}`)
  }
})
