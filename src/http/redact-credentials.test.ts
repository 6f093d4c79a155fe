import { describe, expect, it } from 'vitest'
import { redactCredentials } from './redact-credentials.js'

describe('redactCredentials', () => {
  it('replaces the values of credential-like query parameters, whatever their case or spelling', () => {
    const names = [
      'token',
      'access_token',
      'accessToken',
      'apikey',
      'api_key',
      'key',
      'secret',
      'password',
      'jwt',
      'authorization',
      'ACCESS_TOKEN',
      'Api-Key',
      'refresh_token',
      'client_secret',
      'x-api-key',
      'acc%65ss_token',
      'token[]',
    ]
    for (const name of names)
      expect(redactCredentials(`/micro/stream?${name}=SECRETVALUE&n=1`)).toBe(
        `/micro/stream?${name}=[REDACTED]&n=1`,
      )
  })

  it("replaces a trigger image upload link's one-time token, the link's only credential", () => {
    const link = '/api/msc/v1/organizations/5d14/images/v1/1be7-2a/upload/UPLOADTOKENSECRET'
    expect(redactCredentials(link)).toBe(
      '/api/msc/v1/organizations/5d14/images/v1/1be7-2a/upload/[REDACTED]',
    )
    expect(redactCredentials(`${link}?token=T&n=1`)).toBe(
      '/api/msc/v1/organizations/5d14/images/v1/1be7-2a/upload/[REDACTED]?token=[REDACTED]&n=1',
    )
    expect(redactCredentials('/api/msc/v1/organizations/5d14/images/v1/1be7-2a')).toBe(
      '/api/msc/v1/organizations/5d14/images/v1/1be7-2a',
    )
  })

  it('keeps everything else byte for byte', () => {
    for (const url of [
      '/health',
      '/i?e=pp&aid=a%20b&tv=js-3',
      '/x?monkey=1&keys=2&tokenizer=3',
      '/x?token',
      '/x?=v&&',
      '/path/token=1',
    ]) {
      expect(redactCredentials(url)).toBe(url)
    }
    expect(redactCredentials('/x?a=1&jwt=e.y.j&b=2&Password=p%26w&c')).toBe(
      '/x?a=1&jwt=[REDACTED]&b=2&Password=[REDACTED]&c',
    )
    expect(redactCredentials('/x?%E0%A4%A=1&token=t')).toBe('/x?%E0%A4%A=1&token=[REDACTED]')
  })
})
