// requestId(): the caller's X-Request-Id, sanitised and bounded, else a fresh UUID.
import t from 'tap'
import type { IncomingMessage } from 'node:http'
import { requestId } from '../../../src/front/request-id.ts'

const req = (value?: string | string[]): IncomingMessage => ({ headers: value === undefined ? {} : { 'x-request-id': value } }) as unknown as IncomingMessage
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

const cases: Array<[string, string | string[] | undefined, string | RegExp]> = [
  ['a plain id is kept', 'trace-1234:abc/def', 'trace-1234:abc/def'],
  ['unsafe characters dropped', 'a b<c>"d', 'abcd'],
  ['longer than 128 → cut', 'y'.repeat(200), 'y'.repeat(128)],
  ['nothing safe left → a UUID', '<<>>', UUID],
  ['absent → a UUID', undefined, UUID],
  ['repeated header → the first', ['first', 'second'], 'first'],
]

for (const [name, value, expected] of cases) {
  t.test(name, async (t) => {
    const id = requestId(req(value))
    if (typeof expected === 'string') t.equal(id, expected)
    else t.match(id, expected)
  })
}

t.test('two requests without an id → two different ids', async (t) => {
  t.not(requestId(req()), requestId(req()))
})
