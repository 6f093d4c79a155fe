#!/usr/bin/env node
import { Command, CommanderError, Option } from 'commander'
import { ConfigError, type ConfigFlags, type ConsoleClientFlags } from './config/index.js'
import { DomainError } from './shared/index.js'
import {
  DatabaseFromNewerVersionError,
  DatabaseUnreachableError,
  EmbeddedDatabaseStartError,
  DataDirLockedError,
  DataDirUnusableError,
} from './db/index.js'
import type {
  CreateKeyOptions,
  SchemasPushOptions,
  SchemasPullOptions,
  CommandOutcome,
} from './cli/index.js'
import { packageVersion } from './package-version.js'

function storeFlags(command: Command): ConfigFlags {
  const { dataDir } = command.optsWithGlobals<{ dataDir?: string }>()
  return { dataDir }
}

/**
 * The commands, loaded when one runs: `floe --help` or `--version` parses none of them (~0.2 s of
 * the ~0.4 s they took on a slow machine), and only `floe start` loads the server (app.ts).
 */
const commands = () => import('./cli/index.js')

function print(output: Promise<string>): Promise<void> {
  return output.then((text) => void process.stdout.write(text))
}

const program = new Command('floe')
  // A usage problem (an unknown option, a missing argument) is thrown, to exit with 2 below.
  .exitOverride()
  .description('Floe: design, register and test Snowplow event tracking')
  .version(packageVersion(), '-V, --version', 'print the version of Floe')
  .option(
    '--data-dir <path>',
    'data directory of the embedded database (env FLOE_DATA_DIR, default ./.floe); ignored when DATABASE_URL is set',
  )
  .showHelpAfterError()

program
  .command('start')
  .description('serve every service on one HTTP listener')
  .option('-p, --port <port>', 'port to listen on (env PORT, default 9090)')
  .option('--host <host>', 'interface to bind (env HOST, default 0.0.0.0)')
  .option(
    '--token-ttl <ttl>',
    'access token lifetime: seconds, or 15m, 1h, 1d (env FLOE_TOKEN_TTL, default 1h)',
  )
  .option(
    '--log-level <level>',
    'fatal, error, warn, info, debug, trace or silent (env FLOE_LOG_LEVEL, default info)',
  )
  .option(
    '--log-format <format>',
    'json, pretty (time, level and message, for people) or auto: pretty on a terminal (env FLOE_LOG_FORMAT, default auto)',
  )
  .option(
    '-m, --max-events <n>',
    'events kept per list by the inspection service (with --storage postgres: at each cleanup); 0 turns /local and /micro off (env FLOE_MAX_EVENTS, default 100000)',
  )
  .option(
    '--storage <kind>',
    'where inspected events are kept: memory, or postgres to share them between instances and keep them across restarts (env FLOE_EVENT_STORAGE, default memory)',
  )
  .option(
    '--no-storage',
    'keep no events: /local and /micro answer 404 while the collector and the outputs go on (as --max-events 0; Micro 4.x)',
  )
  .option(
    '--events-database-url <url>',
    "with --storage postgres: a database of the events' own (env FLOE_EVENTS_DATABASE_URL; default: the registry's database)",
  )
  .option(
    '--events-ttl <ttl>',
    'with --storage postgres: delete events stored longer ago, e.g. 30m, 24h, 7d; at least 1m (env FLOE_EVENTS_TTL, default 24h)',
  )
  .option(
    '--events-max-bytes <size>',
    'the most each list keeps of events (in memory: their estimated size, default 512MiB; with --storage postgres: their JSON text, default 1GiB), the oldest first, e.g. 64MiB, 4GiB (env FLOE_EVENTS_MAX_BYTES)',
  )
  .option(
    '--iglu-dir <dir>',
    'embedded schema directory, schemas/vendor/name/jsonschema/M-R-A (repeatable; env FLOE_IGLU_DIRS)',
    (dir: string, all: string[] = []) => [...all, dir],
  )
  .option(
    '-i, --iglu <file>',
    'Snowplow resolver configuration whose repositories are added (env FLOE_IGLU_RESOLVER_CONFIG)',
  )
  .option(
    '--inspect-org <uuid>',
    'organization whose registry validates events (env FLOE_INSPECT_ORG; default: bootstrap, else oldest organization)',
  )
  .option(
    '--inspect-env <env>',
    'registry environment that validates events, DEV or PROD (env FLOE_INSPECT_ENV, default DEV)',
  )
  .option('--no-iglu-central', 'do not look schemas up on Iglu Central (env FLOE_IGLU_CENTRAL=off)')
  .option(
    '-t, --output-tsv',
    'print each good and incomplete event to stdout as enriched TSV (logs go to stderr)',
  )
  .option(
    '-j, --output-json',
    'print each good and incomplete event to stdout as flattened JSON, one per line',
  )
  .option('-d, --destination <url>', 'also POST each batch of printed events to this URL')
  .option(
    '-e, --enrichments <dir>',
    'directory of Snowplow enrichment configuration files to enable (env FLOE_ENRICHMENTS_DIR)',
  )
  .option(
    '--enrich <name>',
    'enable an enrichment with its typical configuration: campaign_attribution, referer_parser, ua_parser_config, event_fingerprint_config or anon_ip (repeatable; env FLOE_ENRICH, comma-separated)',
    (name: string, all: string[] = []) => [...all, name],
  )
  .option(
    '--redirects',
    'follow click-tracking redirects, GET /r/tp2?u=<url>: recorded, then answered 302 to u (env FLOE_REDIRECTS=on; default off: 404, as Micro)',
  )
  .option(
    '--redirect-domain <host>',
    'with --redirects: a host redirects may go to; repeatable; none given: any (env FLOE_REDIRECT_DOMAINS, comma-separated)',
    (host: string, all: string[] = []) => [...all, host],
  )
  .option(
    '--collector-path <custom=standard>',
    'a custom collector path standing for a standard one, e.g. /com.acme/track=/com.snowplowanalytics.snowplow/tp2 (also /r/tp2, /com.snowplowanalytics.iglu/v1); repeatable (env FLOE_COLLECTOR_PATHS, comma-separated)',
    (entry: string, all: string[] = []) => [...all, entry],
  )
  .option(
    '-c, --collector-config <file>',
    'a Snowplow collector (Micro) configuration in HOCON: its interface, port, paths, cookie and redirect settings become defaults of the flags above and below (see docs/configuration.md)',
  )
  .option(
    '--cookie-secure <on|off>',
    'Secure attribute of the network user id cookie (env FLOE_COOKIE_SECURE, default on)',
  )
  .option(
    '--cookie-http-only <on|off>',
    'HttpOnly attribute of that cookie (env FLOE_COOKIE_HTTP_ONLY, default on)',
  )
  .option(
    '--cookie-same-site <value>',
    'SameSite attribute of that cookie: None, Lax, Strict or unset (env FLOE_COOKIE_SAME_SITE, default None)',
  )
  .option(
    '--cookie-name <name>',
    'name of the network user id cookie the collector sets and reads (env FLOE_COOKIE_NAME, default sp)',
  )
  .option(
    '--cookie-domain <domain>',
    'Domain attribute of that cookie, e.g. shop.test (env FLOE_COOKIE_DOMAIN; default none: the host answering)',
  )
  .option(
    '--no-cookie',
    'set no network user id cookie; one sent is still read (env FLOE_COOKIE=off)',
  )
  .option(
    '--tls-cert <file>',
    'PEM certificate (chain) for a second listener over HTTPS, with --tls-key (env FLOE_TLS_CERT)',
  )
  .option('--tls-key <file>', 'PEM private key of --tls-cert (env FLOE_TLS_KEY)')
  .option(
    '--tls-pfx <file>',
    'PKCS#12 file instead of --tls-cert and --tls-key, its password in FLOE_TLS_PASSPHRASE or MICRO_SSL_CERT_PASSWORD (env FLOE_TLS_PFX)',
  )
  .option('--tls-port <port>', 'port of the HTTPS listener (env FLOE_TLS_PORT, default 9543)')
  .option(
    '--geo-db <file>',
    'GeoIP2/GeoLite2 City .mmdb file: enables ip_lookups with it (env FLOE_GEO_DB)',
  )
  .option(
    '--yauaa',
    'adds the YAUAA enrichment (a nl.basjes/yauaa_context entity per event) unless the enrichments directory configures it; same as --enrich yauaa_enrichment_config',
  )
  .option(
    '--spec-violations-bad',
    'an event that breaks its event specification becomes a bad row instead of a good event with the violations in its event_specification_validation entity (env FLOE_SPEC_VIOLATIONS_BAD=on)',
  )
  .option(
    '--inspection-origins <origins>',
    "browser origins whose pages may call /local and /micro besides the server's own and localhost ones, separated by commas, or * for any (env FLOE_INSPECTION_ORIGINS)",
  )
  .action(async (options: ConfigFlags & { collectorConfig?: string }, command: Command) => {
    // Commander gives both one value, the last: a contradiction must not pick one in silence.
    const words = process.argv.slice(2)
    if (words.includes('--no-storage') && words.some((w) => /^--storage(=|$)/.test(w)))
      throw new ConfigError(['--no-storage and --storage contradict each other: give one'])
    const { runStart } = await commands()
    return runStart({ ...options, ...storeFlags(command) })
  })

const orgs = program.command('orgs').description('manage organizations')
orgs
  .command('create <name>')
  .description('create an organization and print its id')
  .action((name: string, _options: unknown, command: Command) =>
    print(commands().then((c) => c.createOrganizationCommand(name, storeFlags(command)))),
  )
orgs
  .command('list')
  .description('list organizations')
  .action((_options: unknown, command: Command) =>
    print(commands().then((c) => c.listOrganizationsCommand(storeFlags(command)))),
  )

const keys = program
  .command('keys')
  .description('manage API keys (secrets are stored only as hashes)')
keys
  .command('create')
  .description('create an API key and print its secret, once')
  .requiredOption('--org <uuid>', 'organization the key belongs to')
  .option('--admin', 'allow admin actions such as deploying to PROD')
  .option('--description <text>', 'what the key is for')
  .option(
    '--iglu-vendor-prefix <prefix>',
    'an Iglu Server key instead, for the apikey header of the Iglu API only: the vendor prefix it covers (com.acme covers com.acme.*; * covers every vendor)',
  )
  .addOption(
    new Option('--iglu-permission <permission>', 'what the Iglu key may do with its prefix')
      .choices(['read', 'write'])
      .default('read'),
  )
  .action((options: CreateKeyOptions, command: Command) =>
    print(commands().then((c) => c.createKeyCommand(options, storeFlags(command)))),
  )
keys
  .command('list')
  .description('list API keys, without their secrets')
  .option('--org <uuid>', 'only the keys of this organization')
  .action((options: { org?: string }, command: Command) =>
    print(commands().then((c) => c.listKeysCommand(options, storeFlags(command)))),
  )
keys
  .command('revoke <id>')
  .description('revoke an API key; tokens issued for it stop working')
  .action((id: string, _options: unknown, command: Command) =>
    print(commands().then((c) => c.revokeKeyCommand(id, storeFlags(command)))),
  )

/** A command's report on stdout, what went wrong on stderr, and its exit code. */
const report = (outcome: CommandOutcome) => {
  process.stdout.write(outcome.output)
  if (outcome.errorOutput !== undefined) process.stderr.write(outcome.errorOutput)
  process.exitCode = outcome.exitCode
}

const schemas = program
  .command('schemas')
  .description('schemas as code: check a directory of Iglu schemas (vendor/name/jsonschema/1-0-0)')
schemas
  .command('lint <dir>')
  .description(
    'check every schema in DIR as the registry validates one, with no server: the meta-schema, the linters, the limits, path = self, no version gaps, and bumps the compatibility engine agrees with',
  )
  .option('--format <format>', 'text (file:line: severity rule message) or json', 'text')
  .option('--strict', 'exit with 1 on warnings too')
  .action(async (directory: string, options: { format?: string; strict?: boolean }) => {
    report(await (await commands()).lintSchemasCommand(directory, options))
  })

schemas
  .command('diff <before> <after>')
  .description(
    'can every value valid under BEFORE still be sent under AFTER? The compatibility verdict, a witness when not, and the version change; exit 0 compatible, 1 incompatible, 3 undecidable',
  )
  .option('--format <format>', 'text or json', 'text')
  .action(async (before: string, after: string, options: { format?: string }) => {
    report(await (await commands()).diffSchemasCommand(before, after, options))
  })

/** The server and key of `push` and `pull`: flags, else snowtype's variables. */
const withServer = (command: Command) =>
  command
    .option('--server <url>', 'Floe (or Console API) URL (env SNOWPLOW_CONSOLE_API_URL)')
    .option('--org <uuid>', 'organization (env SNOWPLOW_CONSOLE_ORG_ID)')
    .option('--key-id <uuid>', 'API key id, for a v3 key (env SNOWPLOW_CONSOLE_API_KEY_ID)')
    .option('--key <secret>', 'API key secret (env SNOWPLOW_CONSOLE_API_KEY)')
    .option('--timeout <seconds>', 'give up a request that has not answered in this time', '60')
withServer(
  schemas
    .command('push <dir>')
    .description(
      'lint DIR, then publish it through the Console API in dependency and version order, skipping what is deployed with the same content',
    )
    .option('--env <env>', 'dev, or prod (through DEV)', 'dev')
    .option('--dry-run', 'print the plan and push nothing')
    .option('--patch', 'replace a DEV version whose content differs'),
).action(async (directory: string, options: SchemasPushOptions) =>
  report(await (await commands()).pushSchemasCommand(directory, options)),
)
withServer(
  schemas
    .command('pull <dir>')
    .description(
      'write every version a registry holds into DIR/vendor/name/format/version, as it was pushed',
    )
    .option('--env <env>', 'dev or prod', 'dev'),
).action(async (directory: string, options: SchemasPullOptions) =>
  report(await (await commands()).pullSchemasCommand(directory, options)),
)

withServer(
  program
    .command('mcp')
    .description(
      "Floe's MCP server over stdio for coding assistants: the registry, the tracking plan and the inspected events of the Floe the flags (or snowtype's variables) name",
    ),
).action(async (options: ConsoleClientFlags) => (await commands()).runMcpCommand(options))

program.parseAsync(process.argv).catch(async (error: unknown) => {
  // Commander has said what it had to (help, the version, or the usage problem) on its own.
  if (error instanceof CommanderError) process.exit(error.exitCode === 0 ? 0 : 2)
  const expected =
    error instanceof ConfigError ||
    error instanceof DomainError ||
    error instanceof DataDirLockedError ||
    error instanceof DataDirUnusableError ||
    error instanceof DatabaseUnreachableError ||
    error instanceof EmbeddedDatabaseStartError ||
    error instanceof DatabaseFromNewerVersionError ||
    // Only a command loaded already throws it: its module is at hand.
    error instanceof (await commands()).ConsoleApiError
  process.stderr.write(
    `floe: ${expected ? (error as Error).message : String((error as Error)?.stack ?? error)}\n`,
  )
  process.exit(1)
})
