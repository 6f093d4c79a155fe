export { apiKeysRoutes } from './api-keys.routes.js'
export type { ApiKey } from './api-keys.store.js'
export { openAuth } from './auth-context.js'
export { AdminRequiredError } from './auth.errors.js'
export type { AuthTables } from './auth.tables.js'
export { type Clock, systemClock } from './clock.js'
export { createCredentialsService, type CredentialsService } from './credentials.service.js'
export { type Principal, requirePrincipal } from './principal.js'
export type { StartupCredentials } from './startup-credentials.js'
export { tokenExchangeRoutes } from './token-exchange.routes.js'
export type { IgluKeyScope } from './api-keys.store.js'
export { IgluAnonymousWriteError } from './auth.errors.js'
export {
  igluReadScope,
  prefixCovers,
  requireIgluKeyManagement,
  requireIgluWrite,
  vendorPrefixOf,
  type IgluReadScope,
} from './iglu-permissions.js'
export { igluKeygenRoutes } from './iglu-keygen.routes.js'
