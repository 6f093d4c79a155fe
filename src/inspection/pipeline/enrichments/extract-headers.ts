import { compileLinearPattern } from '../../../iglu/index.js'
import type { EnrichedEvent } from '../canonical-event.js'

const COOKIE_SCHEMA = 'iglu:org.ietf/http_cookie/jsonschema/1-0-0'
const HEADER_SCHEMA = 'iglu:org.ietf/http_header/jsonschema/1-0-0'

/** `"Name: value"` header lines into pairs. */
function headerPairs(headers: readonly string[]): [string, string][] {
  return headers.flatMap((line) => {
    const at = line.indexOf(':')
    return at <= 0
      ? []
      : [[line.slice(0, at).trim(), line.slice(at + 1).trim()] as [string, string]]
  })
}

/** cookie_extractor_config: one `org.ietf/http_cookie` entity per configured cookie the request carried. */
export function createCookieExtractorStep(config: { readonly cookies: readonly string[] }) {
  const wanted = new Set(config.cookies)
  return function cookieExtractorStep(event: EnrichedEvent, headers: readonly string[]): void {
    for (const [name, value] of headerPairs(headers)) {
      if (name.toLowerCase() !== 'cookie') continue
      const at = value.indexOf('=')
      const cookie = at < 0 ? value : value.slice(0, at)
      if (wanted.has(cookie))
        event.derivedContexts.unshift({
          schema: COOKIE_SCHEMA,
          data: { name: cookie, value: at < 0 ? '' : value.slice(at + 1) },
        })
    }
  }
}

/** http_header_extractor_config: one `org.ietf/http_header` entity per header whose name matches the pattern. */
export function createHeaderExtractorStep(config: { readonly headersPattern: string }) {
  const pattern = compileLinearPattern(config.headersPattern)
  return function headerExtractorStep(event: EnrichedEvent, headers: readonly string[]): void {
    for (const [name, value] of headerPairs(headers))
      if (pattern.test(name))
        event.derivedContexts.unshift({ schema: HEADER_SCHEMA, data: { name, value } })
  }
}
