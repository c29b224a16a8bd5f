import t from 'tap'
import type { JsonObject, JsonRpcNotification } from '../../../src/protocol/jsonrpc.ts'
import { coversUri, honourFilter, hubFilterFor, isSubscriptionNotification, isWantedByFilter, listChangeOf, listFilterFor } from '../../../src/protocol/subscriptions.ts'

t.test('isWantedByFilter', async (t) => {
  const cases: Array<[string, JsonRpcNotification, JsonObject, boolean]> = [
    ['tools changed, asked → yes', { jsonrpc: '2.0', method: 'notifications/tools/list_changed' }, { toolsListChanged: true }, true],
    ['tools changed, not asked → no', { jsonrpc: '2.0', method: 'notifications/tools/list_changed' }, { promptsListChanged: true }, false],
    ['prompts changed, asked → yes', { jsonrpc: '2.0', method: 'notifications/prompts/list_changed' }, { promptsListChanged: true }, true],
    ['resources changed, asked → yes', { jsonrpc: '2.0', method: 'notifications/resources/list_changed' }, { resourcesListChanged: true }, true],
    ['updated, same URI → yes', { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'file:///a' } }, { resourceSubscriptions: ['file:///a'] }, true],
    ['updated, sub-resource → yes', { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'file:///a/b' } }, { resourceSubscriptions: ['file:///a/'] }, true],
    ['updated, prefix but not a sub-resource → no', { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'file:///ab' } }, { resourceSubscriptions: ['file:///a'] }, false],
    ['updated, no subscriptions → no', { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'file:///a' } }, {}, false],
    ['updated, no uri → no', { jsonrpc: '2.0', method: 'notifications/resources/updated' }, { resourceSubscriptions: ['file:///a'] }, false],
    ['anything else → no', { jsonrpc: '2.0', method: 'notifications/message' }, { toolsListChanged: true }, false],
  ]
  for (const [name, notification, filter, wanted] of cases) t.equal(isWantedByFilter(notification, filter), wanted, name)
})

t.test('listChangeOf', async (t) => {
  t.equal(listChangeOf('notifications/tools/list_changed')?.filterKey, 'toolsListChanged', 'tools → toolsListChanged')
  t.same(listChangeOf('notifications/resources/list_changed')?.kinds, ['resources', 'templates'], 'resources → both resource lists')
  for (const method of ['constructor', '__proto__', 'toString', 'notifications/message']) t.equal(listChangeOf(method), undefined, `${method} → none`)
})

t.test('coversUri (SUB-5)', async (t) => {
  const cases: Array<[string, string, boolean]> = [
    ['file:///a', 'file:///a', true],
    ['file:///a', 'file:///a/b', true],
    ['file:///a/', 'file:///a/b', true],
    ['file:///a', 'file:///ab', false],
    ['file:///a/b', 'file:///a', false],
  ]
  for (const [subscribed, uri, covered] of cases) t.equal(coversUri(subscribed, uri), covered, `${subscribed} covers ${uri} → ${covered}`)
})

t.test('isSubscriptionNotification', async (t) => {
  t.ok(isSubscriptionNotification('notifications/prompts/list_changed'), 'list change → yes')
  t.ok(isSubscriptionNotification('notifications/resources/updated'), 'resource update → yes')
  t.notOk(isSubscriptionNotification('notifications/progress'), 'progress → no')
})

t.test('listFilterFor', async (t) => {
  t.same(listFilterFor({ tools: { listChanged: true }, prompts: {}, resources: { listChanged: true } }), { toolsListChanged: true, resourcesListChanged: true }, 'declared listChanged → asked')
  t.equal(listFilterFor({ tools: {}, resources: { subscribe: true } }), undefined, 'nothing declared → undefined')
})

t.test('hubFilterFor: a legacy backend declaring logging is listened to for its logs', async (t) => {
  const cases: Array<[string, JsonObject, boolean, JsonObject | undefined]> = [
    ['list changes declared → those, whatever the era', { tools: { listChanged: true }, logging: {} }, false, { toolsListChanged: true }],
    ['legacy, logging only → {}', { tools: {}, logging: {} }, true, {}],
    ['modern, logging only → undefined (LOG-3: no logs on listen streams)', { tools: {}, logging: {} }, false, undefined],
    ['legacy, neither → undefined', { tools: {} }, true, undefined],
  ]
  for (const [name, capabilities, legacy, expected] of cases) t.same(hubFilterFor(capabilities, legacy), expected, name)
})

t.test('honourFilter (SUB-3)', async (t) => {
  const all = { tools: { listChanged: true }, prompts: { listChanged: true }, resources: { listChanged: true, subscribe: true } }
  const requested: JsonObject = { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true, resourceSubscriptions: ['file:///a'] }
  t.same(honourFilter(requested, all, ['file:///a']), requested, 'everything declared → everything honoured')
  t.same(honourFilter(requested, { tools: { listChanged: true } }, ['file:///a']), { toolsListChanged: true }, 'only tools declared → only tools')
  t.same(honourFilter(requested, all, []), { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true }, 'no routable URI → no resourceSubscriptions')
  t.same(honourFilter({ toolsListChanged: false }, all), {}, 'false is not a request')
})
