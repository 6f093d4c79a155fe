import { startTestApp } from './test-app.js'
import { testConfig, type TestConfigOverrides } from './test-config.js'

// What the enrichment tests of event inspection (`micro-enrichments*.http.test.ts`) share.

export const SP = 'com.snowplowanalytics.snowplow'

/** An enrichment's configuration file, as Enrich reads it: `{schema, data: {name, vendor, enabled, parameters}}`. */
export const enrichmentConfig = (
  schema: string,
  name: string,
  parameters: object,
  enabled = true,
) => JSON.stringify({ schema, data: { name, vendor: SP, enabled, parameters } })

/** A desktop Chrome's user agent. */
export const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.130 Safari/537.36'

/** What the test geo databases (`writeTestGeoDatabases`) say of their London address. */
export const LONDON = {
  geo_country: 'GB',
  geo_region: 'ENG',
  geo_city: 'London',
  geo_zipcode: 'EC1A',
  geo_latitude: 51.5142,
  geo_longitude: -0.0931,
  geo_region_name: 'England',
  geo_timezone: 'Europe/London',
}

/** The start-up error of an app with this configuration, or null when it starts. */
export async function startupError(
  inspection: TestConfigOverrides['inspection'],
): Promise<unknown> {
  return startTestApp(testConfig({ inspection })).then(
    async (started) => {
      await started.close()
      return null
    },
    (error: unknown) => error,
  )
}
