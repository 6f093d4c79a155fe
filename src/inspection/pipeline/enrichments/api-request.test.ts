import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { filledUri, inputText, javaUrlEncode } from './api-request.js'

const SEED = 20261204

/** Java's URLEncoder, byte by byte: a lone surrogate is written as `?`, as Java's encoder does. */
function javaReference(text: string): string {
  let out = ''
  for (const byte of Buffer.from(text.replace(/\p{Cs}/gu, '?'), 'utf8')) {
    const c = String.fromCharCode(byte)
    if (/[A-Za-z0-9.*_-]/.test(c)) out += c
    else if (c === ' ') out += '+'
    else out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`
  }
  return out
}

/** Text of any code points, ASCII half the time; lone surrogates included. */
const anyText = fc
  .array(fc.oneof(fc.integer({ min: 0, max: 0x7f }), fc.integer({ min: 0, max: 0x10ffff })), {
    maxLength: 24,
  })
  .map((points) => String.fromCodePoint(...points))

describe("Java's URL encoding", () => {
  it.each([
    ['lookup test', 'lookup+test'],
    ['2014-11-10T08:38:30.000Z', '2014-11-10T08%3A38%3A30.000Z'],
    ['~', '%7E'],
    ['a/b', 'a%2Fb'],
    ['*.-_', '*.-_'],
    ["!'()", '%21%27%28%29'],
    ['a+b&c=d', 'a%2Bb%26c%3Dd'],
    ['é', '%C3%A9'],
    ['€', '%E2%82%AC'],
    ['😀', '%F0%9F%98%80'],
    ['\ud800x', '%3Fx'],
  ])('%j → %s', (text, encoded) => {
    expect(javaUrlEncode(text)).toBe(encoded)
  })

  it(`agrees with a byte-by-byte URLEncoder on any text (seed ${SEED})`, () => {
    fc.assert(
      fc.property(anyText, (text) => {
        expect(javaUrlEncode(text)).toBe(javaReference(text))
      }),
      { seed: SEED, numRuns: 500 },
    )
  })
})

describe('filling the URI', () => {
  const values = new Map([
    ['user', 'ann lee'],
    ['client', 'a/b'],
  ])

  it('fills each {{key}}, spaces allowed inside the braces, every occurrence', () => {
    expect(filledUri('http://x/{{user}}/{{ client }}?u={{  user }}', values)).toBe(
      'http://x/ann+lee/a%2Fb?u=ann+lee',
    )
  })

  it('gives null when a brace is left: a key no input fills, a literal brace, a tab inside', () => {
    expect(filledUri('http://x/{{user}}/{{other}}', values)).toBeNull()
    expect(filledUri('http://x/{{user}}?q={', values)).toBeNull()
    expect(filledUri('http://x/{{\tuser}}', values)).toBeNull()
  })

  it('never takes an encoded brace in a value for a template', () => {
    expect(filledUri('http://x/{{user}}', new Map([['user', '{{user}}']]))).toBe(
      'http://x/%7B%7Buser%7D%7D',
    )
  })
})

describe('the text of a value found in an entity', () => {
  it.each([
    ['text', 'text'],
    [null, 'null'],
    [true, 'true'],
    [90, '90'],
    [43.1, '43.1'],
    [[], ''],
    [['a', 'b', 'c'], 'a,b,c'],
    [[1, [2, [3, null]]], '1,2,3,null'],
    [{ a: 1, b: [true] }, '{"a":1,"b":[true]}'],
    [[{ a: 1 }, 'x'], '{"a":1},x'],
  ])('%j → %j', (value, text) => {
    expect(inputText(value)).toBe(text)
  })
})
