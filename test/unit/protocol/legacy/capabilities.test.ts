// Capabilities across the eras (LEGACY-16, CAP-2, LEGACY-2).
import t from 'tap'
import { compactClientCapabilities, toLegacyServerCapabilities, toModernClientCapabilities } from '../../../../src/protocol/legacy/capabilities.ts'

t.test('client capabilities → flags → 2026-07-28 shape', async (t) => {
  const cases: Array<[string, unknown, string[], Record<string, unknown>]> = [
    ['none', {}, [], {}],
    ['not an object', 'x', [], {}],
    ['roots with listChanged → roots (listChanged dropped)', { roots: { listChanged: true } }, ['r'], { roots: {} }],
    ['sampling {}', { sampling: {} }, ['s'], { sampling: {} }],
    ['sampling with context and tools', { sampling: { context: {}, tools: {} } }, ['s', 'sc', 'st'], { sampling: { context: {}, tools: {} } }],
    ['elicitation {} → form only (CAP-2)', { elicitation: {} }, ['ef'], { elicitation: { form: {} } }],
    ['elicitation url only', { elicitation: { url: {} } }, ['eu'], { elicitation: { url: {} } }],
    ['elicitation form and url', { elicitation: { form: {}, url: {} } }, ['ef', 'eu'], { elicitation: { form: {}, url: {} } }],
    ['tasks and experimental dropped', { tasks: { list: {} }, experimental: { x: {} } }, [], {}],
    ['v1 SDK client with everything', { roots: { listChanged: true }, sampling: {}, elicitation: { form: {} } }, ['r', 's', 'ef'], { roots: {}, sampling: {}, elicitation: { form: {} } }],
  ]
  for (const [name, input, flags, modern] of cases) {
    const compact = compactClientCapabilities(input)
    t.same(compact, flags, `${name} → flags ${JSON.stringify(flags)}`)
    t.same(toModernClientCapabilities(compact), modern, `${name} → ${JSON.stringify(modern)}`)
  }
})

t.test('toLegacyServerCapabilities', async (t) => {
  const cases: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
    ['tools only', { tools: {} }, { tools: {} }],
    ['the gateway with listen', { tools: { listChanged: true }, prompts: { listChanged: true }, resources: { listChanged: true, subscribe: false }, completions: {}, logging: {} },
      { tools: { listChanged: true }, prompts: { listChanged: true }, resources: { listChanged: true, subscribe: false }, completions: {}, logging: {} }],
    ['extensions and unknown flags dropped', { tools: { listChanged: true, other: 1 }, extensions: { 'io.x/y': {} } }, { tools: { listChanged: true } }],
    ['non-object capability dropped', { tools: true }, {}],
  ]
  for (const [name, input, expected] of cases) t.same(toLegacyServerCapabilities(input), expected, `${name} → ${JSON.stringify(expected)}`)
})
