export {
  createKeyCommand,
  createOrganizationCommand,
  listKeysCommand,
  listOrganizationsCommand,
  revokeKeyCommand,
} from './credentials.commands.js'
export { runStart } from './start.command.js'
export { lintSchemasCommand } from './schemas-lint.command.js'
export { diffSchemasCommand } from './schemas-diff.command.js'
