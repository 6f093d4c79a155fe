import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { localAssetPath } from './enrichment-assets.js'

describe('enrichment asset locations', () => {
  it('reads absolute file:// URIs, file: URIs and plain paths relative to the enrichments directory', () => {
    expect(localAssetPath('file:///var/lib/geo ip/', 'GeoLite2-City.mmdb', '/etc/floe')).toBe(
      '/var/lib/geo ip/GeoLite2-City.mmdb',
    )
    expect(localAssetPath('file:///var/lib/geo%20ip', 'GeoLite2-City.mmdb', '/etc/floe')).toBe(
      '/var/lib/geo ip/GeoLite2-City.mmdb',
    )
    expect(localAssetPath('file://localhost/srv/geo', 'GeoIP2-ISP.mmdb', '/etc/floe')).toBe(
      '/srv/geo/GeoIP2-ISP.mmdb',
    )
    expect(localAssetPath('file:maxmind', 'GeoIP2-ISP.mmdb', '/etc/floe')).toBe(
      '/etc/floe/maxmind/GeoIP2-ISP.mmdb',
    )
    expect(localAssetPath('file:../shared%20data', 'regexes.yaml', '/etc/floe')).toBe(
      '/etc/shared data/regexes.yaml',
    )
    expect(localAssetPath('maxmind', 'GeoIP2-ISP.mmdb', '/etc/floe')).toBe(
      path.join('/etc/floe', 'maxmind', 'GeoIP2-ISP.mmdb'),
    )
  })

  it('refuses remote locations and a database that is not a file name', () => {
    expect(() =>
      localAssetPath(
        'http://snowplow-hosted-assets.s3.amazonaws.com/third-party/maxmind/',
        'GeoLite2-City.mmdb',
        '/etc/floe',
      ),
    ).toThrow(
      /Floe does not download enrichment assets; fetch http:\/\/snowplow-hosted-assets\.s3\.amazonaws\.com\/third-party\/maxmind\/GeoLite2-City\.mmdb yourself/,
    )
    expect(() => localAssetPath('s3://bucket/maxmind', 'GeoLite2-City.mmdb', '/etc/floe')).toThrow(
      /does not download/,
    )
    expect(() => localAssetPath('file:///data', '../etc/passwd', '/etc/floe')).toThrow(
      /database must be a file name/,
    )
  })
})
