import { randomUUID } from 'node:crypto'
import { sql, type Kysely } from 'kysely'
import type { BootstrapCredentials } from '../config/index.js'
import type { AuthTables } from './auth.tables.js'
import { generateApiKeySecret, hashApiKeySecret } from './api-key-secret.js'
import { createApiKeysStore } from './api-keys.store.js'
import { createOrganizationsStore } from './organizations.store.js'

/** What start-up did about credentials, so that `floe start` can tell the operator. */
export type StartupCredentials =
  | {
      readonly kind: 'initial'
      readonly organizationId: string
      readonly apiKeyId: string
      readonly apiKey: string
    }
  | {
      readonly kind: 'bootstrap'
      readonly organizationId: string
      readonly apiKeyId: string
      readonly organizationCreated: boolean
      readonly keyCreated: boolean
      readonly secretChanged: boolean
      readonly keyRevoked: boolean
    }
  | { readonly kind: 'existing' }

export class BootstrapConflictError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'BootstrapConflictError'
  }
}

// Instances that share one PostgreSQL server may start together; this lock makes the
// "is the store empty?" decision happen once. Any fixed 64-bit number works.
const STARTUP_LOCK = 7_046_531_202

/**
 * With bootstrap credentials: makes sure that organization and that admin key exist (idempotent).
 * Without: on an empty store, creates a default organization and an admin key, whose secret is
 * returned this once and never again, once {@link confirmInitialSecretShown} says it was shown; until
 * then, each start gives that key a new secret.
 */
export async function ensureStartupCredentials(
  db: Kysely<AuthTables>,
  bootstrap: BootstrapCredentials | null,
): Promise<StartupCredentials> {
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${STARTUP_LOCK}::bigint)`.execute(trx)
    const organizations = createOrganizationsStore(trx)
    const apiKeys = createApiKeysStore(trx)

    if (bootstrap !== null) {
      const organizationCreated = await organizations.ensure({
        id: bootstrap.organizationId,
        name: 'bootstrap',
      })
      const secretHash = hashApiKeySecret(bootstrap.apiKey)
      const existing = await apiKeys.findCredentialById(bootstrap.apiKeyId)
      if (existing === null) {
        await apiKeys.insert({
          id: bootstrap.apiKeyId,
          organizationId: bootstrap.organizationId,
          secretHash,
          isAdmin: true,
          description: 'bootstrap (FLOE_BOOTSTRAP_API_KEY_ID)',
        })
      } else if (existing.key.organizationId !== bootstrap.organizationId) {
        throw new BootstrapConflictError(
          `FLOE_BOOTSTRAP_API_KEY_ID ${bootstrap.apiKeyId} already belongs to organization ${existing.key.organizationId}, not ${bootstrap.organizationId}`,
        )
      } else if (existing.secretHash !== secretHash || !existing.key.isAdmin) {
        await apiKeys.update(bootstrap.apiKeyId, { secretHash, isAdmin: true })
      }
      return {
        kind: 'bootstrap',
        organizationId: bootstrap.organizationId,
        apiKeyId: bootstrap.apiKeyId,
        organizationCreated,
        keyCreated: existing === null,
        secretChanged: existing !== null && existing.secretHash !== secretHash,
        keyRevoked: existing?.key.revokedAt != null,
      }
    }

    if (!(await organizations.isEmpty())) {
      // A first start that stopped before showing its secret (killed, or its port taken): the key
      // gets a new secret, shown this time. The lost one was never seen, so nothing is revoked in use.
      const unshown = await apiKeys.findUnshownInitial()
      if (unshown === null) return { kind: 'existing' }
      const apiKey = generateApiKeySecret()
      await apiKeys.update(unshown.id, { secretHash: hashApiKeySecret(apiKey) })
      return {
        kind: 'initial',
        organizationId: unshown.organizationId,
        apiKeyId: unshown.id,
        apiKey,
      }
    }
    const organization = await organizations.insert({ id: randomUUID(), name: 'default' })
    const apiKey = generateApiKeySecret()
    const key = await apiKeys.insert({
      id: randomUUID(),
      organizationId: organization.id,
      secretHash: hashApiKeySecret(apiKey),
      isAdmin: true,
      description: 'created at first start',
      secretUnshown: true,
    })
    return { kind: 'initial', organizationId: organization.id, apiKeyId: key.id, apiKey }
  })
}

/** The operator has seen the first-start secret: later starts say nothing more about it. */
export async function confirmInitialSecretShown(
  db: Kysely<AuthTables>,
  apiKeyId: string,
): Promise<void> {
  await createApiKeysStore(db).update(apiKeyId, { secretUnshown: false })
}
