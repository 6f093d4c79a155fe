import { describe, expect, it } from 'vitest'
import { uaParserContext } from './pipeline/enrichments/ua-parser.js'
import { loadUaParserRules } from './ua-parser-database.js'

const { rules } = await loadUaParserRules()

describe('ua_parser_context of current browsers', () => {
  it('describes Chrome on Windows, Safari on an iPhone, Firefox on Linux, Googlebot and a garbage string', () => {
    const chrome = uaParserContext(
      rules,
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.130 Safari/537.36',
    )
    expect(chrome).toEqual({
      useragentFamily: 'Chrome',
      useragentMajor: '120',
      useragentMinor: '0',
      useragentPatch: '6099',
      useragentVersion: 'Chrome 120.0.6099',
      osFamily: 'Windows',
      osMajor: '10',
      osMinor: null,
      osPatch: null,
      osPatchMinor: null,
      osVersion: 'Windows 10',
      deviceFamily: 'Other',
    })
    const safari = uaParserContext(
      rules,
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1.2 Mobile/15E148 Safari/604.1',
    )
    expect(safari).toMatchObject({
      useragentFamily: 'Mobile Safari',
      useragentVersion: 'Mobile Safari 17.1.2',
      osFamily: 'iOS',
      osVersion: 'iOS 17.1.2',
      deviceFamily: 'iPhone',
    })
    const firefox = uaParserContext(
      rules,
      'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0',
    )
    expect(firefox).toMatchObject({
      useragentFamily: 'Firefox',
      useragentMajor: '121',
      useragentMinor: '0',
      useragentPatch: null,
      useragentVersion: 'Firefox 121.0',
      osFamily: 'Ubuntu',
      osVersion: 'Ubuntu',
      deviceFamily: 'Other',
    })
    const googlebot = uaParserContext(
      rules,
      'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
    )
    expect(googlebot).toMatchObject({
      useragentFamily: 'Googlebot',
      useragentVersion: 'Googlebot 2.1',
      osFamily: 'Other',
      osVersion: 'Other',
      deviceFamily: 'Spider',
    })
    expect(uaParserContext(rules, '}}garbage{{')).toEqual({
      useragentFamily: 'Other',
      useragentMajor: null,
      useragentMinor: null,
      useragentPatch: null,
      useragentVersion: 'Other',
      osFamily: 'Other',
      osMajor: null,
      osMinor: null,
      osPatch: null,
      osPatchMinor: null,
      osVersion: 'Other',
      deviceFamily: 'Other',
    })
  })
})
