import { closedObject, coreSchema, SNOWPLOW, text, type CoreSchema } from './self-describing.js'

/**
 * The configurations of enrichments that Floe reads from an enrichments directory and checks
 * before it starts, when no repository the user configured has their schemas (offline, say): a
 * `*.js` file becomes a `javascript_script_config` of its own.
 */

/** An enrichment configuration: which one, whether it runs, and its parameters. */
const enrichmentConfig = (parameters: CoreSchema): CoreSchema =>
  closedObject({ vendor: text(), name: text(), enabled: { type: 'boolean' }, parameters }, [
    'name',
    'vendor',
    'enabled',
    'parameters',
  ])

const javascriptScriptConfig = (version: '1-0-0' | '1-0-1') =>
  coreSchema(
    SNOWPLOW,
    'javascript_script_config',
    version,
    'A JavaScript enrichment: its script, base64-encoded, and (1-0-1) the object given to it',
    enrichmentConfig(
      closedObject(
        version === '1-0-0' ? { script: text() } : { script: text(), config: { type: 'object' } },
        ['script'],
      ),
    ),
  )

export const ENRICHMENT_CONFIGS = [
  javascriptScriptConfig('1-0-0'),
  javascriptScriptConfig('1-0-1'),
] as const
