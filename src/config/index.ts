export type { SigningSecrets } from './auth-config.js'
export type {
  CollectorPathAlias,
  CookieConfig,
  RedirectsConfig,
  SameSite,
} from './collector-config.js'
export {
  readCollectorConfigFile,
  withCollectorFile,
  type CollectorFile,
} from './collector-config-file.js'
export {
  type BootstrapCredentials,
  type Config,
  ConfigError,
  type ConfigFlags,
  type ClusterLease,
  type DatabaseConfig,
  DEFAULT_PGLITE_SHARED_BUFFERS_MB,
  type FlagEnrichment,
  loadConfig,
  loadConsoleClientConfig,
  type TlsConfig,
  unknownFlagEnrichment,
} from './config.js'
export { type CostlyWorkLimits, DEFAULT_COSTLY_WORK_LIMITS } from './costly-work-config.js'
export type { InspectionConfig } from './inspection-config.js'
export type { InspectionApiOrigins } from './inspection-origins.js'
export type { ConsoleClientConfig, ConsoleClientFlags } from './console-client-config.js'
export { parseHoconText } from './hocon-text.js'
