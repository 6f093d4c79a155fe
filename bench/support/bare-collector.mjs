// What the bench's bare collector routes share (bench/baseline-server.mjs, and the worker-store
// prototype's server): the GIF that GET /i answers, and a collector's bodies read as text whatever
// their media type, as Floe's collector reads them.

export const PIXEL = Buffer.from(
  'R0lGODlhAQABAPAAAP///wAAACH5BAUAAAAALAAAAAABAAEAAAICRAEAOw==',
  'base64',
)

/** Makes `collector` (a Fastify scope) read every body as a string, up to 10 MB. */
export function readBodiesAsText(collector) {
  collector.removeAllContentTypeParsers()
  collector.addContentTypeParser(
    '*',
    { parseAs: 'string', bodyLimit: 10 * 1024 * 1024 },
    (_request, body, done) => done(null, body),
  )
}
