import type { RouteShorthandOptions } from 'fastify'
import { Type } from 'typebox'
import { documentedOnly, ErrorBodyRef, textAnswer } from '../../http/index.js'

/**
 * The collector's operations as the API document describes them. Trackers read nothing of the
 * answers but their statuses; the schemas document only (a route's compilers neither check a
 * request nor shape an answer, which is a pixel or a word), and
 * `test/inspection-api-contract.http.test.ts` holds the answers of a real server to them.
 */

const tags = ['Collector']

const pixel = {
  description: 'A 1×1 transparent GIF, not to be cached',
  content: { 'image/gif': { schema: Type.String({ format: 'binary' }) } },
}
/** A tracker sends a payload that could not be stored again; a database store can refuse one. */
const storeRefusals = {
  500: {
    ...ErrorBodyRef,
    description: 'The event store, a database, refused the write (the tracker sends it again)',
  },
  503: {
    ...ErrorBodyRef,
    description: 'The event store, a database, cannot be reached or its disk is full',
  },
}

function operation(
  summary: string,
  description: string,
  response: Record<number, unknown>,
): RouteShorthandOptions {
  return {
    schema: { tags, summary, description, response: { ...response, ...storeRefusals } },
    ...documentedOnly,
  }
}

const TRACKER_PATHS =
  'com.snowplowanalytics.snowplow/tp2 (a POST body is a payload_data JSON), com.snowplowanalytics.iglu/v1; other pairs are recorded as adapter failures.'

export const COLLECTOR_OPERATIONS = {
  pixel: operation(
    'Record a tracker protocol (tp1) GET request',
    'Any query string is recorded; the events it holds are validated, enriched and kept.',
    { 200: pixel },
  ),
  trackerGet: operation(
    'Record a GET request to a tracker or webhook path',
    `${TRACKER_PATHS} With --redirects, r/tp2 follows a click-tracking redirect.`,
    {
      200: pixel,
      302: { description: 'r/tp2 with --redirects: to the target, u', type: 'null' },
      400: textAnswer('r/tp2: a target that cannot be followed, and why'),
      404: textAnswer('r/tp2 without --redirects'),
    },
  ),
  trackerPost: operation('Record a POST request to a tracker or webhook path', TRACKER_PATHS, {
    200: textAnswer('ok'),
    404: textAnswer('r/tp2, which takes GET requests'),
    413: { ...ErrorBodyRef, description: 'A body past 10 MiB, not recorded' },
  }),
  sinkHealth: operation(
    'Whether the collector stores what it takes',
    'Always ok while it answers.',
    {
      200: textAnswer('ok'),
    },
  ),
  robots: operation('No crawling', 'Disallows every path.', {
    200: textAnswer('The robots rules'),
  }),
} satisfies Record<string, RouteShorthandOptions>
