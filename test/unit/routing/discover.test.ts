// server/discover capabilities (CAP-3, CAP-6): listChanged / subscribe only where some backend
// declared them and the gateway runs listen; tools always present.
import t from 'tap'
import type { JsonObject } from '../../../src/protocol/jsonrpc.ts'
import { BackendSet } from '../../../src/routing/backend-set.ts'
import { buildCapabilities } from '../../../src/routing/discover.ts'
import { createFakeBackend, entryOf } from '../../helpers/fake-backend.ts'

function capabilitiesOf(declared: JsonObject[], listen = true): JsonObject {
  const set = new BackendSet(declared.map((capabilities, i) => entryOf(createFakeBackend(`b${i}`, { capabilities }))), '__')
  return buildCapabilities(set, { listen })
}

t.test('declared flags → promised per kind (CAP-6)', async (t) => {
  const cases: Array<[string, JsonObject[], boolean, JsonObject]> = [
    ['no backends', [], true, { tools: {} }],
    ['resources without listChanged', [{ resources: {} }], true, { tools: {}, resources: {} }],
    ['resources.subscribe only', [{ resources: { subscribe: true } }], true, { tools: {}, resources: { subscribe: true } }],
    ['tools.listChanged from one of two', [{ tools: {} }, { tools: { listChanged: true }, prompts: {} }], true, { tools: { listChanged: true }, prompts: {} }],
    ['every flag, listen off', [{ tools: { listChanged: true }, resources: { listChanged: true, subscribe: true } }], false, { tools: {}, resources: {} }],
    ['completions and logging', [{ completions: {}, logging: {} }], true, { tools: {}, completions: {}, logging: {} }],
  ]
  for (const [name, declared, listen, expected] of cases) t.same(capabilitiesOf(declared, listen), expected, `${name} → ${JSON.stringify(expected)}`)
})
