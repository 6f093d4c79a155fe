import {
  closedObject,
  coreSchema,
  COUNT,
  SNOWPLOW,
  text,
  textOrNull,
  type CoreSchema,
} from './self-describing.js'

/**
 * The entities Floe's enrichments derive (validated like any other), and the failure entity of
 * incomplete events.
 */

const uaParserContext = coreSchema(
  SNOWPLOW,
  'ua_parser_context',
  '1-0-0',
  'The browser, OS and device read from the user agent',
  closedObject(
    {
      useragentFamily: text(),
      useragentMajor: textOrNull(),
      useragentMinor: textOrNull(),
      useragentPatch: textOrNull(),
      useragentVersion: text(),
      osFamily: text(),
      osMajor: textOrNull(),
      osMinor: textOrNull(),
      osPatch: textOrNull(),
      osPatchMinor: textOrNull(),
      osVersion: text(),
      deviceFamily: text(),
    },
    ['useragentFamily', 'useragentMajor', 'useragentMinor', 'osFamily', 'deviceFamily'],
  ),
)

const asn = (version: '1-0-0' | '1-0-1') =>
  coreSchema(
    SNOWPLOW,
    'asn',
    version,
    'The autonomous system of the IP address',
    closedObject(
      {
        number: { type: 'integer', ...COUNT },
        organization: textOrNull(),
        ...(version === '1-0-1' ? { likelyBot: { type: 'boolean' } } : {}),
      },
      ['number'],
    ),
  )

/** An HTTP header or cookie the extractors found: a name and a value of at most 4096 characters. */
const httpEntity = (name: string, what: string, value: CoreSchema) =>
  coreSchema(
    'org.ietf',
    name,
    '1-0-0',
    what,
    closedObject({ name: text({ maxLength: 4096 }), value: { ...value, maxLength: 4096 } }, [
      'name',
      'value',
    ]),
  )

/** Why an event failed, on its incomplete twin; open to further properties. */
const failure = coreSchema(SNOWPLOW, 'failure', '1-0-0', 'Why an event failed', {
  type: 'object',
  required: ['failureType', 'errors', 'timestamp', 'componentName', 'componentVersion'],
  properties: {
    failureType: text(),
    errors: { type: 'array', items: { type: 'object' } },
    schema: textOrNull(),
    data: { type: ['object', 'null'], additionalProperties: true },
    timestamp: text({ format: 'date-time' }),
    componentName: text(),
    componentVersion: text(),
  },
})

/**
 * Floe's verdict on an event against its event specification; open to further properties (Floe
 * adds each violation's rule and specification version, and the specification matched).
 */
const eventSpecificationValidation = coreSchema(
  SNOWPLOW,
  'event_specification_validation',
  '1-0-0',
  'Whether an event keeps to its event specification, and where it does not',
  {
    type: 'object',
    required: ['isValid'],
    properties: {
      isValid: { type: 'boolean' },
      errors: {
        type: 'array',
        items: {
          type: 'object',
          required: ['message'],
          properties: { message: text(), schema: textOrNull(), path: textOrNull() },
        },
      },
    },
  },
)

/** Properties of yauaa_context 1-0-5, grouped by their longest length (none: any length). */
const YAUAA_LENGTHS: readonly (readonly [number | null, string])[] = [
  [
    128,
    'deviceClass deviceBrand deviceCpu deviceCpuBits operatingSystemClass layoutEngineClass agentClass agentSecurity',
  ],
  [256, 'deviceName operatingSystemName layoutEngineName agentName'],
  [
    1000,
    'deviceFirmwareVersion deviceVersion operatingSystemVersion operatingSystemNameVersion operatingSystemVersionBuild ' +
      'layoutEngineVersion layoutEngineVersionMajor layoutEngineNameVersion layoutEngineNameVersionMajor layoutEngineBuild ' +
      'agentVersion agentVersionMajor agentNameVersion agentNameVersionMajor agentBuild agentLanguage agentLanguageCode ' +
      'webviewAppVersionMajor webviewAppNameVersion webviewAppNameVersionMajor iECompatibilityVersion ' +
      'iECompatibilityVersionMajor iECompatibilityNameVersion iECompatibilityNameVersionMajor',
  ],
  [1024, 'facebookDeviceClass facebookDeviceName'],
  [
    null,
    'agentInformationEmail agentInformationUrl agentUuid webviewAppName webviewAppVersion facebookCarrier ' +
      'facebookDeviceVersion facebookFBOP facebookFBSS facebookOperatingSystemName facebookOperatingSystemVersion ' +
      'anonymized hackerAttackVector hackerToolkit koboAffiliate koboPlatformId carrier gSAInstallationID networkType ' +
      'operatingSystemNameVersionMajor operatingSystemVersionMajor',
  ],
]

const yauaaContext = coreSchema(
  'nl.basjes',
  'yauaa_context',
  '1-0-5',
  'What the YAUAA enrichment reads from the user agent',
  closedObject(
    Object.fromEntries(
      YAUAA_LENGTHS.flatMap(([length, names]) =>
        names.split(' ').map((name) => [name, text(length === null ? {} : { maxLength: length })]),
      ),
    ),
    ['deviceClass'],
  ),
)

/** The bot_detection enrichment's verdict: 1-0-1 adds the client-side indicator. */
const botDetection = (version: '1-0-0' | '1-0-1') =>
  coreSchema(
    SNOWPLOW,
    'bot_detection',
    version,
    'Whether the event looks like a bot, and which signals said so',
    closedObject(
      {
        bot: { type: 'boolean' },
        indicators: {
          type: 'array',
          items: {
            type: 'string',
            enum: [
              'yauaa',
              'iab',
              'asnLookups',
              ...(version === '1-0-1' ? ['clientSideDetection'] : []),
            ],
          },
        },
      },
      ['bot', 'indicators'],
    ),
  )

/** The IAB enrichment's verdict on the event's user agent and address. */
const spidersAndRobots = coreSchema(
  'com.iab.snowplow',
  'spiders_and_robots',
  '1-0-0',
  'Whether the IAB/ABC list says the user agent or address is a spider or robot, and why',
  closedObject(
    {
      spiderOrRobot: { type: 'boolean' },
      category: {
        enum: ['SPIDER_OR_ROBOT', 'ACTIVE_SPIDER_OR_ROBOT', 'INACTIVE_SPIDER_OR_ROBOT', 'BROWSER'],
      },
      reason: {
        enum: ['FAILED_IP_EXCLUDE', 'FAILED_UA_INCLUDE', 'FAILED_UA_EXCLUDE', 'PASSED_ALL'],
      },
      primaryImpact: {
        enum: ['PAGE_IMPRESSIONS', 'AD_IMPRESSIONS', 'PAGE_AND_AD_IMPRESSIONS', 'UNKNOWN', 'NONE'],
      },
    },
    ['spiderOrRobot', 'category', 'reason', 'primaryImpact'],
  ),
)

export const DERIVED: readonly (readonly [string, CoreSchema])[] = [
  uaParserContext,
  yauaaContext,
  asn('1-0-0'),
  asn('1-0-1'),
  botDetection('1-0-0'),
  botDetection('1-0-1'),
  spidersAndRobots,
  httpEntity('http_header', 'An HTTP header of the request', text()),
  httpEntity('http_cookie', 'A cookie of the request', textOrNull()),
  failure,
  eventSpecificationValidation,
]
