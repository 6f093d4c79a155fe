import { readFileSync } from 'node:fs'
import { parse } from 'yaml'
import { describe, expect, it } from 'vitest'
import { parseUserAgent } from './pipeline/enrichments/ua-parser-rules.js'
import { loadUaParserRules, UAP_CORE_REGEXES } from './ua-parser-database.js'

const { rules, skipped } = await loadUaParserRules()

// Cases taken from uap-core's own fixtures (tests/test_ua.yaml, test_os.yaml, test_device.yaml in its
// repository, Apache-2.0; the npm package does not ship them), keeping cases whose rules read the same
// in the installed 0.18.0: [user agent, family, major, minor, patch(, patch minor)]. The WKWebView case
// is the exception: the repository's newer rules give it 7.1.2, 0.18.0's last-resort rule no version.
const UA_CASES: [string, string, string | null, string | null, string | null][] = [
  [
    'Mozilla/5.0 (Windows; U; en-US) AppleWebKit/531.9 (KHTML, like Gecko) AdobeAIR/2.5.1',
    'AdobeAIR',
    '2',
    '5',
    '1',
  ],
  [
    'Mozilla/5.0 (Linux; U; en-us; KFTT Build/IML74K) AppleWebKit/535.19 (KHTML, like Gecko) Silk/2.0 Safari/535.19 Silk-Accelerated=false',
    'Amazon Silk',
    '2',
    '0',
    null,
  ],
  [
    'Mozilla/5.0 (Linux; U; Android 2.2.2; en-gb; HTC Desire Build/FRG83G) AppleWebKit/533.1 (KHTML, like Gecko) Version/4.0 Mobile Safari/533.1',
    'Android',
    '2',
    '2',
    '2',
  ],
  [
    'MQQBrowser/371 Mozilla/5.0 (iPhone 4S; CPU iPhone OS 6_0_1 like Mac OS X) AppleWebKit/536.26 (KHTML, like Gecko) Mobile/10A523 Safari/7534.48.3',
    'QQ Browser Mobile',
    '371',
    null,
    null,
  ],
  [
    'Mozilla/5.0 (X11; U; Linux i686; en-US; rv:1.9.1.1pre) Gecko/20090717 Ubuntu/9.04 (jaunty) Shiretoko/3.5.1pre',
    'Firefox (Shiretoko)',
    '3',
    '5',
    '1pre',
  ],
  [
    'Mozilla/5.0 (X11; U; SunOS i86pc; en-US; rv:1.8.0.5) Gecko/20060728 Firefox/1.5.0.5',
    'Firefox',
    '1',
    '5',
    '0',
  ],
  [
    'Mozilla/5.0 (X11; Linux i686 (x86_64); rv:2.0b4) Gecko/20100818 Firefox/4.0b4',
    'Firefox Beta',
    '4',
    '0',
    'b4',
  ],
  [
    'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
    'Googlebot',
    '2',
    '1',
    null,
  ],
  ['Java/1.6.0_43', 'Java', '6', '0', '43'],
  [
    'Mozilla/4.0 (compatible; MSIE 8.0; Windows NT 6.0; Trident/4.0; chromeframe; SLCC1; .NET CLR 2.0.50727; .NET CLR 3.5.30729; .NET CLR 3.0.30729)',
    'IE',
    '8',
    '0',
    null,
  ],
  [
    'Mozilla/5.0 (iPod; U; CPU iPhone OS 4_3_2 like Mac OS X; en-us) AppleWebKit/533.17.9 (KHTML, like Gecko) Version/5.0.2 Mobile/8H7 Safari/6533.18.5',
    'Mobile Safari',
    '5',
    '0',
    '2',
  ],
  [
    'Mozilla/5.0 (iPhone; CPU iPhone OS 7_1_2 like Mac OS X) AppleWebKit/537.51.2 (KHTML, like Gecko) Mobile/11D257',
    'Mobile Safari UI/WKWebView',
    null,
    null,
    null,
  ],
  [
    'Mozilla/5.0 (Macintosh; U; Intel Mac OS X 10_6_5; en-us) AppleWebKit/533.18.1 (KHTML, like Gecko) Version/5.0.2 Safari/533.18.5',
    'Safari',
    '5',
    '0',
    '2',
  ],
  [
    'Mozilla/5.0 (X11; Linux x86_64; rv:3.0) Goanna/20170207 PaleMoon/27.1.0',
    'Pale Moon',
    '27',
    '1',
    '0',
  ],
  [
    'Opera/9.80 (BlackBerry; Opera Mini/7.0.31437/28.3030; U; en) Presto/2.8.119 Version/11.10',
    'Opera Mini',
    '7',
    '0',
    '31437',
  ],
  [
    'Mozilla/5.0 (PlayBook; U; RIM Tablet OS 1.0.0; en-US) AppleWebKit/534.8+ (KHTML, like Gecko) Version/0.0.1 Safari/534.8+',
    'BlackBerry WebKit',
    '1',
    '0',
    '0',
  ],
  [
    'Mozilla/5.0 (Linux; Android 4.4.2; Nexus 5 Build/KOT49H) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/35.0.1916.122 Mobile Safari/537.36',
    'Chrome Mobile',
    '35',
    '0',
    '1916',
  ],
  ['SomethingWeNeverKnewExisted', 'Other', null, null, null],
]

const OS_CASES: [string, string, string | null, string | null, string | null, string | null][] = [
  [
    'Mozilla/5.0 (Macintosh; U; Intel Mac OS X 10_6_3; en-us; Silk/1.1.0-80) AppleWebKit/533.16 (KHTML, like Gecko) Version/5.0 Safari/533.16 Silk-Accelerated=true',
    'Android',
    null,
    null,
    null,
    null,
  ],
  [
    'Mozilla/5.0 (Linux; U; Android 2.2.2; en-gb; HTC Desire Build/FRG83G) AppleWebKit/533.1 (KHTML, like Gecko) Version/4.0 Mobile Safari/533.1',
    'Android',
    '2',
    '2',
    '2',
    null,
  ],
  [
    'Opera/9.80 (Android 3.2; Linux; Opera Tablet/ADR-1106291546; U; en) Presto/2.8.149 Version/11.10',
    'Android',
    '3',
    '2',
    null,
    null,
  ],
  [
    'Mozilla/5.0 (BlackBerry; U; BlackBerry 9800; en-GB) AppleWebKit/534.1+ (KHTML, like Gecko) Version/6.0.0.141 Mobile Safari/534.1+',
    'BlackBerry OS',
    '6',
    '0',
    '0',
    '141',
  ],
  [
    'Mozilla/4.0 (BREW 3.1.5; U; en-us; Sanyo; NetFront/3.5.1/AMB) Boost SCP3810',
    'BREW',
    '3',
    '1',
    '5',
    null,
  ],
  [
    'NetFront/4.2 (BMP 1.0.4; U; en-us; LG; NetFront/4.2/AMB) Boost LG272 MMP/2.0 Profile/MIDP-2.1 Configuration/CLDC-1.1',
    'Brew MP',
    '1',
    '0',
    '4',
    null,
  ],
  [
    'Mozilla/5.0 (iPad; U; CPU OS 3_2 like Mac OS X; en-us) AppleWebKit/531.21.10 (KHTML, like Gecko) Version/4.0.4 Mobile/7B367 Safari/531.21.10',
    'iOS',
    '3',
    '2',
    null,
    null,
  ],
  ['python-requests/0.14 CPython/2.6 Linux/2.6-43-server', 'Linux', '2', '6', null, null],
  [
    'Mozilla/5.0 (Macintosh; U; Intel Mac OS X 10_5_7; en-us) AppleWebKit/530.17 (KHTML, like Gecko) Version/4.0 Safari/530.17 Skyfire/2.0',
    'Mac OS X',
    '10',
    '5',
    '7',
    null,
  ],
  ['Mozilla/4.0 (compatible; MSIE 5.17; Mac_PowerPC)', 'Mac OS', null, null, null, null],
  ['IUC(U;iOS 5.1.1;Zh-cn;320*480;)/UCWEB7.9.0.94/41/997', 'iOS', '5', '1', '1', null],
  [
    'Mozilla/5.0 (Series40; NokiaC2-03/07.48; Profile/MIDP-2.1 Configuration/CLDC-1.1) Gecko/20100401 S40OviBrowser/2.2.0.0.33',
    'Nokia Series 40',
    null,
    null,
    null,
    null,
  ],
  [
    'Mozilla/5.0 (X11; U; Linux i686; en-US; rv:1.9.1.16) Gecko/20110302 Conkeror/0.9.2 (Debian-0.9.2+git100804-1)',
    'Debian',
    null,
    null,
    null,
    null,
  ],
  [
    'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
    'Other',
    null,
    null,
    null,
    null,
  ],
]

const DEVICE_CASES: [string, string, string | null, string | null][] = [
  [
    'atc/1.0 watchOS/5.1.3 model/Watch3,4 hwp/t8004 build/16S535 (6; dt:156)',
    'Apple Watch',
    'Apple',
    'Watch3,4',
  ],
  ['ALCATEL-OT510A/382 ObigoInternetBrowser/Q05A', 'Alcatel OT510A', 'Alcatel', 'OT510A'],
  [
    'Mozilla/5.0 (Linux; U; Android 4.0.3; en-us; Amaze_4G Build/IML74K) AppleWebKit/534.30 (KHTML, like Gecko) Version/4.0 Mobile Safari/534.30',
    'HTC Amaze 4G',
    'HTC',
    'Amaze 4G',
  ],
  [
    'Opera/9.80 (BlackBerry; Opera Mini/7.0.31437/28.3030; U; en) Presto/2.8.119 Version/11.10',
    'BlackBerry',
    'BlackBerry',
    null,
  ],
  [
    'Mozilla/5.0 (Linux; Android 4.2; Galaxy Nexus Build/JOP40C) AppleWebKit/535.19 (KHTML, like Gecko) Chrome/18.0.1025.166 Mobile Safari/535.19',
    'Samsung Galaxy Nexus',
    'Samsung',
    'Galaxy Nexus',
  ],
  [
    'Mozilla/5.0 (iPhone; U; fr; CPU iPhone OS 4_2_1 like Mac OS X; fr) AppleWebKit/533.17.9 (KHTML, like Gecko) Version/5.0.2 Mobile/8C148a Safari/6533.18.5',
    'iPhone',
    'Apple',
    'iPhone',
  ],
  [
    'Mozilla/5.0 (Linux; U; en-us; KFTT Build/IML74K) AppleWebKit/535.19 (KHTML, like Gecko) Silk/2.0 Safari/535.19 Silk-Accelerated=false',
    'Kindle Fire HD',
    'Amazon',
    'Kindle Fire HD 7"',
  ],
  [
    'NetFront/4.2 (BMP 1.0.4; U; en-us; LG; NetFront/4.2/AMB) Boost LG272 MMP/2.0 Profile/MIDP-2.1 Configuration/CLDC-1.1',
    'Generic Feature Phone',
    'Generic',
    'Feature Phone',
  ],
  [
    'Mozilla/5.0 (compatible; MSIE 10.0; Windows Phone 8.0; Trident/6.0; IEMobile/10.0; ARM; Touch; NOKIA; Lumia 920)',
    'Lumia 920',
    'Nokia',
    'Lumia 920',
  ],
  [
    'Mozilla/5.0 (compatible; MSIE 9.0; Windows NT 6.1; Trident/5.0; XBLWP7; ZuneWP7)',
    'Other',
    null,
    null,
  ],
  [
    'Mozilla/4.0 (Brew MP 1.0.2; U; en-us; Sanyo; NetFront/3.5.1/AMB) Sprint E4100',
    'SprintE4100',
    'Sprint',
    'E4100',
  ],
  [
    'Mozilla/5.0 (X11; Linux x86_64; Quest 2) AppleWebKit/537.36 (KHTML, like Gecko) OculusBrowser/26.2.0.0.10 SamsungBrowser/4.0 Chrome/110.0.5481.192 VR Safari/537.36',
    'Quest',
    'Meta',
    'Quest 2',
  ],
  [
    'Mozilla/4.0 (compatible; Linux 2.6.10) NetFront/3.3 Kindle/1.0 (screen 600x800)',
    'Kindle',
    'Amazon',
    'Kindle 1.0',
  ],
  ['Nokia5320di/UCWEB8.0.3.99/28/999', 'Nokia 5320di', 'Nokia', '5320di'],
]

describe('uap-core regexes.yaml', () => {
  it('compiles every rule of the installed file in JavaScript', () => {
    const document = parse(readFileSync(UAP_CORE_REGEXES, 'utf8')) as Record<string, unknown[]>
    expect(skipped).toEqual([])
    expect([rules.userAgent.length, rules.os.length, rules.device.length]).toEqual([
      document.user_agent_parsers?.length,
      document.os_parsers?.length,
      document.device_parsers?.length,
    ])
    expect(rules.device.length).toBeGreaterThan(100)
  })

  it.each(UA_CASES)(
    'agrees with uap-core on the user agent of %s',
    (ua, family, major, minor, patch) => {
      expect(parseUserAgent(rules, ua).userAgent).toEqual({ family, major, minor, patch })
    },
  )

  it.each(OS_CASES)(
    'agrees with uap-core on the OS of %s',
    (ua, family, major, minor, patch, patchMinor) => {
      expect(parseUserAgent(rules, ua).os).toEqual({ family, major, minor, patch, patchMinor })
    },
  )

  it.each(DEVICE_CASES)('agrees with uap-core on the device of %s', (ua, family, brand, model) => {
    expect(parseUserAgent(rules, ua).device).toEqual({ family, brand, model })
  })

  it('refuses a file that cannot be read or is not a rules file', async () => {
    await expect(loadUaParserRules('/nonexistent/regexes.yaml')).rejects.toThrow(
      /cannot read the user-agent rules/,
    )
    await expect(
      loadUaParserRules(new URL('../../package.json', import.meta.url).pathname),
    ).rejects.toThrow(/not a uap-core regexes file/)
  })
})
