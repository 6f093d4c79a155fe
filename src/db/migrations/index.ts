import type { Migration } from 'kysely/migration'
import * as createOrganizationsAndApiKeys from './2026-11-21-01-create-organizations-and-api-keys.js'
import * as createRegistry from './2026-11-21-02-create-registry.js'
import * as createScenariosAndDataProducts from './2026-11-21-03-create-scenarios-and-data-products.js'
import * as createInspectedEvents from './2026-11-22-04-create-inspected-events.js'
import * as keepAcceptedRequestWork from './2026-11-22-05-keep-accepted-request-work.js'
import * as rememberUnshownInitialSecret from './2026-11-22-06-remember-unshown-initial-secret.js'
import * as keepDocumentsAsSent from './2026-11-23-07-keep-documents-as-sent.js'
import * as keepCompatibilityVerdicts from './2026-11-25-08-keep-compatibility-verdicts.js'
import * as igluKeyScopesAndPublicSchemas from './2026-11-26-09-iglu-key-scopes-and-public-schemas.js'
import * as markEventsKeepingWrittenNumbers from './2026-11-28-10-mark-events-keeping-written-numbers.js'
import * as hashContentAsSnowplowCli from './2026-11-28-11-hash-content-as-snowplow-cli.js'
import * as keepTriggerImages from './2026-11-29-12-keep-trigger-images.js'
import * as nameDeploymentInitiators from './2026-11-29-13-name-deployment-initiators.js'
import * as measureSchemaTexts from './2026-11-29-14-measure-schema-texts.js'
import * as indexUnfinishedRequests from './2026-11-29-15-index-unfinished-requests.js'
import * as indexFinishedRequests from './2026-11-29-16-index-finished-requests.js'
import * as rehashRequestContent from './2026-11-29-17-rehash-request-content.js'
import * as countInspectedEvents from './2026-11-29-18-count-inspected-events.js'
import * as keepInspectedEventVerdicts from './2026-11-30-19-keep-inspected-event-verdicts.js'
import * as writeContextIndexDirectly from './2026-11-30-20-write-context-index-directly.js'
import * as scopePlanIdsToOrganizations from './2026-11-30-21-scope-plan-ids-to-organizations.js'
import * as keepInspectedEventFilterFields from './2026-12-01-22-keep-inspected-event-filter-fields.js'

/**
 * Every migration by name. Names sort by date, and a migration is never edited once merged.
 * A static list (not a folder scan) so that it works the same from `src/` and from `dist/`.
 */
export const migrations: Readonly<Record<string, Migration>> = {
  '2026-11-21-01-create-organizations-and-api-keys': createOrganizationsAndApiKeys,
  '2026-11-21-02-create-registry': createRegistry,
  '2026-11-21-03-create-scenarios-and-data-products': createScenariosAndDataProducts,
  '2026-11-22-04-create-inspected-events': createInspectedEvents,
  '2026-11-22-05-keep-accepted-request-work': keepAcceptedRequestWork,
  '2026-11-22-06-remember-unshown-initial-secret': rememberUnshownInitialSecret,
  '2026-11-23-07-keep-documents-as-sent': keepDocumentsAsSent,
  '2026-11-25-08-keep-compatibility-verdicts': keepCompatibilityVerdicts,
  '2026-11-26-09-iglu-key-scopes-and-public-schemas': igluKeyScopesAndPublicSchemas,
  '2026-11-28-10-mark-events-keeping-written-numbers': markEventsKeepingWrittenNumbers,
  '2026-11-28-11-hash-content-as-snowplow-cli': hashContentAsSnowplowCli,
  '2026-11-29-12-keep-trigger-images': keepTriggerImages,
  '2026-11-29-13-name-deployment-initiators': nameDeploymentInitiators,
  '2026-11-29-14-measure-schema-texts': measureSchemaTexts,
  '2026-11-29-15-index-unfinished-requests': indexUnfinishedRequests,
  '2026-11-29-16-index-finished-requests': indexFinishedRequests,
  '2026-11-29-17-rehash-request-content': rehashRequestContent,
  '2026-11-29-18-count-inspected-events': countInspectedEvents,
  '2026-11-30-19-keep-inspected-event-verdicts': keepInspectedEventVerdicts,
  '2026-11-30-20-write-context-index-directly': writeContextIndexDirectly,
  '2026-11-30-21-scope-plan-ids-to-organizations': scopePlanIdsToOrganizations,
  '2026-12-01-22-keep-inspected-event-filter-fields': keepInspectedEventFilterFields,
}
