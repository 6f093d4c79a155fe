import { stat } from 'node:fs/promises'
import path from 'node:path'
import { checkCompatibilityOnDemand } from './compatibility-on-demand.js'
import { loadConsoleClientConfig, type ConsoleClientFlags } from '../config/index.js'
import {
  checkSelfDescribing,
  contentHashOfText,
  createAjv,
  formatSchemaVer,
} from '../iglu/index.js'
import {
  lintSchemaDirectory,
  planPush,
  versionKey,
  type LocalSchema,
  type PushStep,
  type RemoteContent,
} from '../registry/index.js'
import { ConsoleApiClient } from './console-api-client.js'
import { inFindingOrder, usageProblem, type CommandOutcome } from './schemas-lint.command.js'
import { schemaFiles } from './schema-files.js'

export interface SchemasPushOptions extends ConsoleClientFlags {
  readonly env?: string
  readonly dryRun?: boolean
  readonly patch?: boolean
}

interface DataStructure {
  readonly hash: string
  readonly vendor: string
  readonly name: string
  readonly format: string
}
interface Deployment {
  readonly version: string
  readonly env: string
  readonly contentHash: string
}

/** The content of each version in DEV and PROD, for the structures the directory holds. */
async function remoteContent(
  client: ConsoleApiClient,
  schemas: readonly LocalSchema[],
): Promise<RemoteContent> {
  const groups = new Set(schemas.map((s) => `${s.key.vendor}/${s.key.name}/${s.key.format}`))
  const content = new Map<string, { DEV?: string; PROD?: string }>()
  for (const structure of await client.getJsonList<DataStructure>('/data-structures/v1')) {
    const group = `${structure.vendor}/${structure.name}/${structure.format}`
    if (!groups.has(group)) continue
    // Newest first: the first deployment of a version in an environment is its content there.
    for (const d of await client.getJsonList<Deployment>(
      `/data-structures/v1/${structure.hash}/deployments`,
    )) {
      if (d.env !== 'DEV' && d.env !== 'PROD') continue
      const slot = content.get(`${group}/${d.version}`) ?? {}
      slot[d.env] ??= d.contentHash
      content.set(`${group}/${d.version}`, slot)
    }
  }
  return content
}

const describe = (step: PushStep): string => {
  const uri = `iglu:${versionKey(step.schema.key)}`
  switch (step.kind) {
    case 'skip':
      return `skip         ${uri}: ${step.why.replace(`${uri} is `, '')}`
    case 'deploy-dev':
      return `${step.patch ? 'patch DEV   ' : 'deploy DEV  '} ${uri}`
    case 'deploy-prod':
      return `deploy PROD  ${uri}`
    case 'refuse':
      return `refused      ${uri}: ${step.why.replace(`${uri} is `, '')}`
  }
}

/** A request's result: the registry's answer, or its errors. */
async function send(client: ConsoleApiClient, path: string, body: string) {
  const answer = await client.call('POST', path, body)
  let parsed: { success?: boolean; errors?: string[] | null; message?: string } = {}
  try {
    parsed = JSON.parse(answer.text) as typeof parsed
  } catch {
    // not JSON: the status and text say what happened
  }
  const ok = answer.status === 201 && parsed.success === true
  const why = [...(parsed.errors ?? []), parsed.message ?? answer.text.slice(0, 300)].join('; ')
  return { ok, why: `${answer.status}: ${why}` }
}

async function run(client: ConsoleApiClient, step: PushStep): Promise<string | null> {
  const { key } = step.schema
  const target = {
    vendor: key.vendor,
    name: key.name,
    format: key.format,
    version: formatSchemaVer(key.version),
    message: 'floe schemas push',
  }
  if (step.kind === 'deploy-dev') {
    // The schema goes as its own text, so that the registry keeps it byte for byte.
    const validated = await send(
      client,
      '/data-structures/v1/validation-requests',
      `{"meta":{},"data":${step.schema.payload}}`,
    )
    if (!validated.ok) return `validation refused it: ${validated.why}`
    const body = {
      ...target,
      source: 'VALIDATED',
      target: 'DEV',
      contentHash: step.schema.contentHash,
    }
    const deployed = await send(
      client,
      `/data-structures/v1/deployment-requests${step.patch ? '?patch=true' : ''}`,
      JSON.stringify(body),
    )
    return deployed.ok ? null : `deployment to DEV refused: ${deployed.why}`
  }
  if (step.kind === 'deploy-prod') {
    const deployed = await send(
      client,
      '/data-structures/v1/deployment-requests',
      JSON.stringify({ ...target, source: 'DEV', target: 'PROD' }),
    )
    return deployed.ok ? null : `deployment to PROD refused: ${deployed.why}`
  }
  return null
}

/**
 * `floe schemas push DIR --env dev|prod`: lints the directory as `schemas lint` does (an error stops
 * everything), reads what the registry holds, and publishes through the Console API in dependency
 * and version order, skipping what is there with the same content. `--dry-run` prints the plan only.
 */
export async function pushSchemasCommand(
  directory: string,
  options: SchemasPushOptions,
): Promise<CommandOutcome> {
  const env = (options.env ?? 'dev').toUpperCase()
  if (env !== 'DEV' && env !== 'PROD')
    return usageProblem(`--env is dev or prod, not ${options.env}`)
  if (
    !(await stat(directory).then(
      (s) => s.isDirectory(),
      () => false,
    ))
  )
    return usageProblem(`${directory} is not a directory`)
  const config = loadConsoleClientConfig(options)
  const { files, problems } = await schemaFiles(directory)
  const ajv = createAjv()
  const findings = await lintSchemaDirectory(files, {
    ajv,
    checker: { check: async (c, r) => checkCompatibilityOnDemand(c, r, { ajv }) },
  })
  const errors = [...problems, ...findings]
    .filter((f) => f.severity === 'error')
    .sort(inFindingOrder)
  if (errors.length > 0)
    return {
      output: `${errors.map((f) => `${path.join(directory, f.file)}:${f.line}: error ${f.rule} ${f.message}`).join('\n')}\nnothing pushed: ${errors.length} errors (floe schemas lint shows every finding)\n`,
      exitCode: 1,
    }
  const schemas: LocalSchema[] = files.flatMap((file) => {
    const payload = file.text.trim()
    const self = checkSelfDescribing(JSON.parse(payload))
    return self.kind === 'valid'
      ? [{ path: file.path, key: self.key, payload, contentHash: contentHashOfText(payload) }]
      : []
  })
  const client = await ConsoleApiClient.connect(config)
  const steps = planPush(schemas, await remoteContent(client, schemas), {
    env,
    patch: options.patch === true,
  })
  const lines = steps.map(describe)
  const refused = steps.filter((s) => s.kind === 'refuse').length
  if (options.dryRun === true || refused > 0)
    return {
      output: `${lines.join('\n')}\n${refused > 0 ? `nothing pushed: ${refused} refused\n` : 'dry run: nothing pushed\n'}`,
      exitCode: refused > 0 ? 1 : 0,
    }
  const done: string[] = []
  for (const [index, step] of steps.entries()) {
    const failure = await run(client, step)
    if (failure !== null)
      return {
        output: `${[...done, `${lines[index]}: ${failure}`].join('\n')}\nstopped: ${steps.length - index - 1} steps not run\n`,
        exitCode: 1,
      }
    done.push(lines[index] ?? '')
  }
  const count = (kind: PushStep['kind']) => steps.filter((s) => s.kind === kind).length
  return {
    output: `${[...done, `${count('deploy-dev')} deployed to DEV, ${count('deploy-prod')} to PROD, ${count('skip')} already there`].join('\n')}\n`,
    exitCode: 0,
  }
}
