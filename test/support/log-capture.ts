import { Writable } from 'node:stream'

/** A log stream for a test app that keeps what the server writes, to read back as text. */
export function captureLog(): { readonly stream: Writable; text(): string } {
  let written = ''
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      written += chunk.toString()
      done()
    },
  })
  return { stream, text: () => written }
}
