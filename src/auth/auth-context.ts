import type { FastifyInstance, onRequestAsyncHookHandler } from 'fastify'
import type { Kysely } from 'kysely'
import type { Config } from '../config/index.js'
import { ApiKeyView } from './api-keys.schemas.js'
import type { AuthTables } from './auth.tables.js'
import { createBearerGuard, createTokenReader } from './bearer-guard.hook.js'
import { organizationsRoutes } from './organizations.routes.js'
import type { Clock } from './clock.js'
import { createCredentialsService, type CredentialsService } from './credentials.service.js'
import { createIgluAccessGuard } from './iglu-access.hook.js'
import { createOrganizationsStore } from './organizations.store.js'
import { resolveSigningKeys } from './signing-secret.js'
import {
  confirmInitialSecretShown,
  ensureStartupCredentials,
  type StartupCredentials,
} from './startup-credentials.js'
import { TokenResponse } from './token-exchange.schemas.js'
import { createTokenService, type TokenService } from './token.service.js'

type OrganizationsRoutesOptions = Parameters<typeof organizationsRoutes>[1]

/** The auth context, assembled: start-up credentials, keys, tokens and the guards of the APIs. */
export interface Auth {
  /** What start-up did about organizations and keys. */
  readonly startup: StartupCredentials
  readonly credentials: CredentialsService
  readonly tokens: TokenService
  /** Console API routes: a bearer token of the path's organization. */
  readonly bearerGuard: onRequestAsyncHookHandler
  /** Iglu reads: an API key secret in `apikey`, or a bearer token. */
  readonly igluAccessGuard: onRequestAsyncHookHandler
  /** The principal of a request's bearer token, for routes outside an organization's path (`/mcp`). */
  readonly principalOf: OrganizationsRoutesOptions['principalOf']
  /** `/api/msc/v1/organizations`: the token's organization. */
  readonly organizationsRoutes: readonly [typeof organizationsRoutes, OrganizationsRoutesOptions]
  /** The first organization, by creation; null before any exists. */
  firstOrganizationId(): Promise<string | null>
  /** Whether an organization of this id exists. */
  organizationExists(id: string): Promise<boolean>
  /** Call once the first-start secret has been shown: until then, every start gives that key a new one. */
  confirmStartupShown(): Promise<void>
  /** Declares what auth adds to every request and the schemas its routes share. */
  decorate(http: FastifyInstance): void
}

export async function openAuth(deps: {
  readonly db: Kysely<AuthTables>
  readonly config: Pick<Config, 'auth' | 'bootstrap'>
  readonly clock: Clock
  /** An embedded store is this process's alone, so a key's state may be kept in memory (see active-key-cache.ts). */
  readonly exclusiveStore: boolean
}): Promise<Auth> {
  const { db, config, clock } = deps
  const startup = await ensureStartupCredentials(db, config.bootstrap)
  const credentials = createCredentialsService({ db, clock, exclusiveStore: deps.exclusiveStore })
  const signingKeys = await resolveSigningKeys(db, config.auth.signingSecrets)
  const tokens = createTokenService({
    secret: signingKeys.current,
    previousSecrets: signingKeys.previous,
    ttlSeconds: config.auth.tokenTtlSeconds,
    clock,
  })
  const bearerGuard = createBearerGuard({ tokens, credentials })
  const principalOf = createTokenReader({ tokens, credentials })
  return {
    startup,
    credentials,
    tokens,
    bearerGuard,
    principalOf,
    igluAccessGuard: createIgluAccessGuard({ credentials, bearerGuard }),
    organizationsRoutes: [
      organizationsRoutes,
      {
        principalOf,
        findOrganization: (id) => createOrganizationsStore(db).findById(id),
      },
    ],
    firstOrganizationId: async () => (await createOrganizationsStore(db).list())[0]?.id ?? null,
    organizationExists: async (id) => (await createOrganizationsStore(db).findById(id)) !== null,
    confirmStartupShown: async () => {
      if (startup.kind === 'initial') await confirmInitialSecretShown(db, startup.apiKeyId)
    },
    decorate: (http) => {
      http.decorateRequest('principal', null)
      http.addSchema(TokenResponse)
      http.addSchema(ApiKeyView)
    },
  }
}
