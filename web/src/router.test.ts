import { describe, expect, it } from 'vitest'
import { consoleLink, href, parseRoute } from './router.js'

describe('the console router', () => {
  it('reads the fragment as decoded segments and a query', () => {
    const route = parseRoute('#/data-structures/a%2Fb?version=1-0-0&q=x%20y')
    expect(route.segments).toEqual(['data-structures', 'a/b'])
    expect(route.query.get('version')).toBe('1-0-0')
    expect(route.query.get('q')).toBe('x y')
    expect(parseRoute('').segments).toEqual([])
    expect(parseRoute('#/bad%E0').segments).toEqual(['bad%E0'])
  })

  it('writes links that read back as they were made, leaving out empty values', () => {
    const link = href('data-structures', 'a/b', { version: '1-0-0', from: null, q: '' })
    expect(link).toBe('#/data-structures/a%2Fb?version=1-0-0')
    const route = parseRoute(link)
    expect([route.segments, route.query.get('version')]).toEqual([
      ['data-structures', 'a/b'],
      '1-0-0',
    ])
  })

  it("offers only the console's own pages as links given in the URL", () => {
    expect(consoleLink('#/events?kind=failed', '#/events')).toBe('#/events?kind=failed')
    for (const elsewhere of ['https://example.org/phish', '//example.org', 'javascript:alert(1)'])
      expect(consoleLink(elsewhere, '#/events')).toBe('#/events')
    expect(consoleLink(null, '#/events')).toBe('#/events')
  })
})
