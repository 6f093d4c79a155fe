import { describe, expect, it } from 'vitest'
import { exactJsonText } from '../iglu/index.js'
import { jsonOrText } from './floe-api.js'

describe("the MCP tools' reading of an API answer", () => {
  it('keeps the digits of numbers a double rounds, through the indented text a tool answers', () => {
    const body = jsonOrText('{"events":[{"id":9007199254740993,"price":0.10000000000000000555}]}')
    expect(exactJsonText(body, 2)).toBe(
      '{\n  "events": [\n    {\n      "id": 9007199254740993,\n      "price": 0.10000000000000000555\n    }\n  ]\n}',
    )
  })

  it('gives back the text of an answer that is not JSON', () => {
    expect(jsonOrText('Not Found')).toBe('Not Found')
  })
})
