import t from 'tap'
import { createLineFramer } from '../../../../src/upstream/stdio/line-framer.ts'

function frame(chunks: string[], maxLineBytes = 16, end = false) {
  const lines: string[] = []
  const oversized: number[] = []
  const framer = createLineFramer({ maxLineBytes, onLine: (line) => lines.push(line), onOversized: (count) => oversized.push(count) })
  for (const chunk of chunks) framer.push(Buffer.from(chunk, 'utf8'))
  if (end) framer.end()
  return { lines, oversized }
}

const cases: Array<{ name: string; chunks: string[]; max?: number; end?: boolean; lines: string[]; oversized?: number[] }> = [
  { name: 'one line in one chunk → one line', chunks: ['{"a":1}\n'], lines: ['{"a":1}'] },
  { name: 'two lines in one chunk → two lines', chunks: ['a\nb\n'], lines: ['a', 'b'] },
  { name: 'a line split over chunks → joined', chunks: ['{"a"', ':1', '}\n'], lines: ['{"a":1}'] },
  { name: 'a newline at a chunk start → line ends there', chunks: ['abc', '\ndef\n'], lines: ['abc', 'def'] },
  { name: 'CRLF → CR stripped', chunks: ['abc\r\n'], lines: ['abc'] },
  { name: 'empty lines → skipped', chunks: ['\n\na\n\r\n'], lines: ['a'] },
  { name: 'no trailing newline → held until end', chunks: ['abc'], lines: [] },
  { name: 'no trailing newline, then end → delivered', chunks: ['abc'], end: true, lines: ['abc'] },
  { name: 'end with nothing pending → nothing', chunks: ['a\n'], end: true, lines: ['a'] },
  { name: 'a line of exactly max bytes → delivered', chunks: ['0123456789abcdef\n'], lines: ['0123456789abcdef'] },
  { name: 'an oversized line in one chunk → skipped, reported', chunks: ['0123456789abcdefX\nok\n'], lines: ['ok'], oversized: [17] },
  { name: 'an oversized line over chunks → skipped, next line kept', chunks: ['0123456789', 'abcdefghij', 'klm\nok\n'], lines: ['ok'], oversized: [23] },
  { name: 'an oversized line growing over three chunks → one report', chunks: ['0123456789abcdefXYZ', 'more', '\nok\n'], lines: ['ok'], oversized: [23] },
  { name: 'an oversized unterminated line, then end → reported', chunks: ['0123456789abcdefXYZ'], end: true, lines: [], oversized: [19] },
]

t.test('line framer (STDIO-1, STDIO-2)', async (t) => {
  for (const entry of cases) {
    const { lines, oversized } = frame(entry.chunks, entry.max, entry.end)
    t.same(lines, entry.lines, `${entry.name} (lines)`)
    t.same(oversized, entry.oversized ?? [], `${entry.name} (oversized)`)
  }
})

t.test('multi-byte UTF-8 split inside a character → intact', async (t) => {
  const bytes = Buffer.from('"€"\n', 'utf8')
  const lines: string[] = []
  const framer = createLineFramer({ maxLineBytes: 64, onLine: (line) => lines.push(line), onOversized: () => t.fail('not oversized') })
  framer.push(bytes.subarray(0, 2))
  framer.push(bytes.subarray(2))
  t.same(lines, ['"€"'])
})

t.test('max size counts bytes, not characters', async (t) => {
  const { lines, oversized } = frame(['€€€€€€\n'], 16)
  t.same(lines, [])
  t.same(oversized, [18])
})
