/**
 * Percent-encodes the UTF-8 bytes of any string, leaving RFC 3986's unreserved characters as they
 * are. Unlike `encodeURIComponent` it never throws: a lone surrogate becomes U+FFFD's bytes.
 */
export function percentEncodeUtf8(text: string): string {
  return [...Buffer.from(text, 'utf8')]
    .map((b) =>
      /[A-Za-z0-9_.~-]/.test(String.fromCharCode(b))
        ? String.fromCharCode(b)
        : `%${b.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('')
}
