import { describe, expect, it } from 'vitest'
import { customDataText, parseCustomData } from './custom-data.js'

describe('custom data in the metadata form', () => {
  it('shows simple entries as key=value lines, and reads them back', () => {
    const data = { team: 'web', owner: 'ana@acme.com' }
    expect(customDataText(data)).toBe('team=web\nowner=ana@acme.com')
    expect(parseCustomData(customDataText(data))).toEqual(data)
    expect(parseCustomData(' team = web \n\n')).toEqual({ team: 'web' })
  })

  it('shows entries no line can hold as JSON, so that saving again changes nothing', () => {
    for (const data of [
      { 'k=ey': 'v' },
      { multi: 'line1\nline2' },
      { ' spaced ': ' padded ' },
      { a: 'b', '': 'empty key' },
    ]) {
      const text = customDataText(data)
      expect(text.startsWith('{')).toBe(true)
      expect(parseCustomData(text)).toEqual(data)
    }
  })

  it('names what it cannot read', () => {
    expect(() => parseCustomData('team web')).toThrow(/line 1: write it as key=value/)
    expect(() => parseCustomData('{"a": 1}')).toThrow(/"a": each value must be a string/)
    expect(() => parseCustomData('{"a": ')).toThrow(/not a JSON object/)
    expect(() => parseCustomData('{} ')).not.toThrow()
  })
})
