import {
  systemClock,
  type AuthTables,
  createCredentialsService,
  type CredentialsService,
  type ApiKey,
} from '../auth/index.js'
import { ConfigError, loadConfig, type ConfigFlags } from '../config/index.js'
import { createDb, migrateToLatest } from '../db/index.js'

/** Opens the configured store (migrated), runs one credentials operation, and closes it. */
async function withCredentials<T>(
  flags: ConfigFlags,
  run: (service: CredentialsService) => Promise<T>,
): Promise<T> {
  const config = loadConfig(flags)
  const store = await createDb(config.db)
  try {
    await migrateToLatest(store.db)
    return await run(
      createCredentialsService({ db: store.db.withTables<AuthTables>(), clock: systemClock }),
    )
  } finally {
    await store.close()
  }
}

export async function createOrganizationCommand(name: string, flags: ConfigFlags): Promise<string> {
  const organization = await withCredentials(flags, (service) => service.createOrganization(name))
  return `Created organization "${organization.name}"\n  organization id: ${organization.id}\n`
}

export async function listOrganizationsCommand(flags: ConfigFlags): Promise<string> {
  const organizations = await withCredentials(flags, (service) => service.listOrganizations())
  const rows = organizations.map((o) => [o.id, o.name, o.createdAt.toISOString()])
  return table(['ORGANIZATION ID', 'NAME', 'CREATED'], rows)
}

export interface CreateKeyOptions {
  readonly org: string
  readonly admin?: boolean
  readonly description?: string
  /** An Iglu Server key: its vendor prefix, and read or write. */
  readonly igluVendorPrefix?: string
  readonly igluPermission?: 'read' | 'write'
}

export async function createKeyCommand(
  options: CreateKeyOptions,
  flags: ConfigFlags,
): Promise<string> {
  if (options.igluVendorPrefix !== undefined && options.admin === true)
    throw new ConfigError([
      '--admin and --iglu-vendor-prefix do not go together: an Iglu key is never an admin key',
    ])
  const { key, secret } = await withCredentials(flags, (service) =>
    service.createApiKey({
      organizationId: options.org,
      isAdmin: options.admin === true,
      description: options.description ?? null,
      igluScope:
        options.igluVendorPrefix === undefined
          ? null
          : {
              vendorPrefix: options.igluVendorPrefix,
              permission: options.igluPermission ?? 'read',
            },
    }),
  )
  const kind =
    key.igluScope !== null
      ? `an Iglu key (${key.igluScope.permission} ${key.igluScope.vendorPrefix}; apikey header of the Iglu API only)`
      : key.isAdmin
        ? 'an admin API key'
        : 'an API key'
  return [
    `Created ${kind} for organization ${key.organizationId}.`,
    'The secret is shown only this once and cannot be recovered.',
    `  API key id:     ${key.id}`,
    `  API key secret: ${secret}`,
    '',
  ].join('\n')
}

export async function listKeysCommand(
  options: { org?: string },
  flags: ConfigFlags,
): Promise<string> {
  const keys = await withCredentials(flags, (service) =>
    service.listApiKeys({ organizationId: options.org }),
  )
  return table(
    ['API KEY ID', 'ORGANIZATION ID', 'ADMIN', 'IGLU', 'STATUS', 'CREATED', 'DESCRIPTION'],
    keys.map(keyRow),
  )
}

export async function revokeKeyCommand(id: string, flags: ConfigFlags): Promise<string> {
  const key = await withCredentials(flags, (service) => service.revokeApiKey(id))
  return `Revoked API key ${key.id}; its tokens are refused from now on.\n`
}

function keyRow(key: ApiKey): string[] {
  const status = key.revokedAt === null ? 'active' : `revoked ${key.revokedAt.toISOString()}`
  return [
    key.id,
    key.organizationId,
    key.isAdmin ? 'yes' : 'no',
    key.igluScope === null ? '' : `${key.igluScope.permission} ${key.igluScope.vendorPrefix}`,
    status,
    key.createdAt.toISOString(),
    key.description ?? '',
  ]
}

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  if (rows.length === 0) return '(none)\n'
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)))
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd()
  return `${[line(header), ...rows.map(line)].join('\n')}\n`
}
