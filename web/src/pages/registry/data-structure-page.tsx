import { OverrideRefusal, type DeploymentOverride } from './deployment-override.js'
import { useState } from 'preact/hooks'
import type { ApiClient } from '../../api/client.js'
import {
  currentIn,
  type DataStructure,
  type Deployment,
  type RegistryApi,
} from '../../api/registry.js'
import { laidOut } from '../../components/json-layout.js'
import { JsonLines } from '../../components/json-lines.js'
import { ErrorNote, Status } from '../../components/status.js'
import { useLoad } from '../../components/use-load.js'
import { href, navigate } from '../../router.js'
import { MetadataEditor } from './metadata-editor.js'
import { VersionDiff } from './version-diff.js'
import { TableHead, UtcTime } from '../../components/table-parts.js'
import type { TrackingPlanApi } from '../../api/tracking-plans.js'
import { specificationsUsing } from '../../components/structure-links.js'

/** Versions of the structure, from its deployments, highest first. */
function versionsOf(deployments: readonly Deployment[]): string[] {
  const versions = [
    ...new Set(deployments.filter((d) => d.env !== 'VALIDATED').map((d) => d.version)),
  ]
  const key = (v: string) => v.split('-').map(Number)
  return versions.sort((a, b) => {
    const [x, y] = [key(a), key(b)]
    for (let i = 0; i < 3; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (y[i] ?? 0) - (x[i] ?? 0)
    return 0
  })
}

/**
 * One data structure: its deployments (who, when, with what message), each version's schema as it
 * was sent, a diff of any two versions with the compatibility engine's verdict, promotion to PROD
 * and its metadata.
 */
export function DataStructurePage(props: {
  api: ApiClient
  registry: RegistryApi
  plans: TrackingPlanApi
  hash: string
  query: URLSearchParams
}) {
  const { registry, hash } = props
  const [loaded, reload] = useLoad(
    () => Promise.all([registry.get(hash), registry.deployments(hash)]),
    [registry, hash],
  )
  return (
    <main>
      <p>
        <a href={href('data-structures')}>← Data structures</a>
      </p>
      <Status loaded={loaded} what="the data structure">
        {([structure, deployments]) => (
          <StructureDetail
            {...props}
            structure={structure}
            deployments={deployments}
            versions={versionsOf(deployments)}
            reload={reload}
          />
        )}
      </Status>
    </main>
  )
}

function StructureDetail(props: {
  api: ApiClient
  registry: RegistryApi
  plans: TrackingPlanApi
  structure: DataStructure
  deployments: readonly Deployment[]
  versions: readonly string[]
  query: URLSearchParams
  reload: () => void
}) {
  const { structure, versions, query } = props
  const selected = query.get('version') ?? versions[0] ?? null
  const link = (changes: Record<string, string | null>) =>
    href('data-structures', structure.hash, {
      version: query.get('version'),
      from: query.get('from'),
      to: query.get('to'),
      ...changes,
    })
  return (
    <>
      <header class="page-header">
        <div>
          <h1>
            <span class="muted">{structure.vendor}/</span>
            {structure.name}
          </h1>
          <p class="muted">
            {structure.meta.schemaType ?? 'no type'} · {structure.format}
            {structure.meta.hidden === true ? ' · hidden' : ''}
            {structure.description !== null && (
              <>
                {' · '}
                <bdi>{structure.description}</bdi>
              </>
            )}
          </p>
        </div>
        <a
          class="button"
          href={href('data-structures', 'new', { from: structure.hash, version: selected })}
        >
          New version
        </a>
      </header>

      <section aria-labelledby="deployments-heading">
        <h2 id="deployments-heading">Deployments</h2>
        <DeploymentTable
          {...props}
          current={{ DEV: currentIn(structure, 'DEV'), PROD: currentIn(structure, 'PROD') }}
        />
      </section>

      <section aria-labelledby="specifications-heading">
        <h2 id="specifications-heading">Event specifications</h2>
        <SpecificationsUsing plans={props.plans} structure={structure} />
      </section>

      <section aria-labelledby="schema-heading">
        <h2 id="schema-heading">Schema</h2>
        <nav class="tabs" aria-label="Versions">
          {versions.map((version) => (
            <a
              key={version}
              href={link({ version })}
              aria-current={version === selected ? 'page' : undefined}
            >
              {version}
            </a>
          ))}
        </nav>
        {selected !== null && (
          <VersionText registry={props.registry} hash={structure.hash} version={selected} />
        )}
      </section>

      {versions.length > 1 && (
        <section aria-labelledby="diff-heading">
          <h2 id="diff-heading">Compare versions</h2>
          <VersionDiff
            registry={props.registry}
            hash={structure.hash}
            versions={versions}
            from={query.get('from') ?? versions[1] ?? ''}
            to={query.get('to') ?? versions[0] ?? ''}
            onChange={(from, to) => navigate(link({ from, to }), { replace: true })}
          />
        </section>
      )}

      <section aria-labelledby="meta-heading">
        <h2 id="meta-heading">Metadata</h2>
        <MetadataEditor
          key={structure.hash}
          registry={props.registry}
          structure={structure}
          onSaved={props.reload}
        />
      </section>
    </>
  )
}

/** The event specifications that name this structure, as their event or as an entity. */
function SpecificationsUsing(props: { plans: TrackingPlanApi; structure: DataStructure }) {
  const [loaded] = useLoad(() => props.plans.listScenarios(), [props.plans])
  return (
    <Status loaded={loaded} what="the event specifications">
      {(answer) => {
        const uses = specificationsUsing(answer.data, props.structure)
        if (uses.length === 0)
          return <p class="muted">No event specification names this data structure.</p>
        return (
          <table class="data-table" aria-labelledby="specifications-heading">
            <TableHead columns={['Event specification', 'Status', 'Names it as', 'Version']} />
            <tbody>
              {uses.map(({ scenario, role, version }) => (
                <tr key={`${scenario.id ?? ''}-${role}`}>
                  <td>
                    <a href={href('event-specs', scenario.id ?? '')}>{scenario.name}</a>
                  </td>
                  <td>
                    <span class={`status ${scenario.status ?? ''}`}>{scenario.status}</span>
                    {scenario.version === undefined ? '' : `, version ${scenario.version}`}
                  </td>
                  <td>{role === 'event' ? 'its event' : 'an entity'}</td>
                  <td>{version}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )
      }}
    </Status>
  )
}

/** A version's schema exactly as stored, or laid out over lines when that changes only white space. */
function VersionText(props: { registry: RegistryApi; hash: string; version: string }) {
  const [loaded] = useLoad(
    () => props.registry.versionText(props.hash, props.version),
    [props.registry, props.hash, props.version],
  )
  const [layOut, setLayOut] = useState(false)
  return (
    <Status loaded={loaded} what={`version ${props.version}`}>
      {(text) => {
        const readable = laidOut(text)
        return (
          <>
            {readable !== text && (
              <label class="inline">
                <input
                  type="checkbox"
                  checked={layOut}
                  onChange={(e) => setLayOut(e.currentTarget.checked)}
                />
                Lay out over lines (stored on one line)
              </label>
            )}
            <JsonLines text={layOut ? readable : text} label={`Schema ${props.version}`} />
          </>
        )
      }}
    </Status>
  )
}

function DeploymentTable(props: {
  api: ApiClient
  registry: RegistryApi
  structure: DataStructure
  deployments: readonly Deployment[]
  current: { DEV: Deployment | null; PROD: Deployment | null }
  reload: () => void
}) {
  const { current } = props
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const promotable =
    current.DEV !== null &&
    (current.PROD === null ||
      current.PROD.version !== current.DEV.version ||
      current.PROD.contentHash !== current.DEV.contentHash)

  async function promote(override: DeploymentOverride = {}) {
    if (current.DEV === null) return
    setBusy(true)
    setError(null)
    try {
      await props.registry.deploy({
        vendor: props.structure.vendor,
        name: props.structure.name,
        format: props.structure.format,
        version: current.DEV.version,
        source: 'DEV',
        target: 'PROD',
        message: `Promoted ${current.DEV.version} from the console`,
        ...(override.allowMisversioned === true ? { allowMisversioned: true } : {}),
      })
      props.reload()
    } catch (failure) {
      setError(failure)
    } finally {
      setBusy(false)
    }
  }

  return (
    <>
      {promotable && (
        <p>
          <button
            type="button"
            disabled={busy || !props.api.isAdmin}
            title={props.api.isAdmin ? undefined : 'Only an admin key may deploy to PROD'}
            onClick={() => void promote()}
          >
            Promote {current.DEV?.version} to PROD
          </button>
          {!props.api.isAdmin && <span class="muted"> Only an admin key may deploy to PROD.</span>}
        </p>
      )}
      <ErrorNote error={error} />
      <OverrideRefusal error={error} busy={busy} onOverride={(o) => void promote(o)} />
      <table class="data-table">
        <TableHead columns={['Version', 'Environment', 'When', 'Who', 'Message']} />
        <tbody>
          {props.deployments.map((d, index) => (
            <tr key={index}>
              <td>
                {d.version}
                {d.patchLevel > 0 ? ` (patch ${d.patchLevel})` : ''}
              </td>
              <td>{d.env}</td>
              <td>
                <UtcTime iso={d.ts} />
              </td>
              <td title={d.initiatorId}>{d.initiator ?? '—'}</td>
              <td>{d.message ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  )
}
