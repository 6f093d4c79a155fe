export {
  createKeyCommand,
  type CreateKeyOptions,
  createOrganizationCommand,
  listKeysCommand,
  listOrganizationsCommand,
  revokeKeyCommand,
} from './credentials.commands.js'
export { runStart } from './start.command.js'
export { lintSchemasCommand, type CommandOutcome } from './schemas-lint.command.js'
export { diffSchemasCommand } from './schemas-diff.command.js'
export { pushSchemasCommand, type SchemasPushOptions } from './schemas-push.command.js'
export { pullSchemasCommand, type SchemasPullOptions } from './schemas-pull.command.js'
export { runMcpCommand } from './mcp.command.js'

export { ConsoleApiClient, ConsoleApiError } from './console-api-client.js'
