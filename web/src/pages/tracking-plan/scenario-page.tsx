import type { DataStructure, RegistryApi } from '../../api/registry.js'
import type {
  DataProduct,
  Scenario,
  ScenarioAnswer,
  SourceApplication,
  TrackingPlanApi,
} from '../../api/tracking-plans.js'
import { Status } from '../../components/status.js'
import { useLoad } from '../../components/use-load.js'
import { href, navigate } from '../../router.js'
import { structureHashOf } from '../../components/structure-links.js'
import { ScenarioEditor } from './scenario-editor.js'
import { ScenarioHistory } from './scenario-history.js'
import { TriggerList } from './trigger-list.js'

interface Loaded {
  readonly answer: ScenarioAnswer | null
  readonly products: DataProduct[]
  readonly applications: SourceApplication[]
  readonly sources: string[]
  readonly structures: DataStructure[]
}

/** The Iglu URIs of every data structure's current versions, for the event and entity sources. */
function deployedSources(structures: readonly DataStructure[]): string[] {
  const uris = new Set<string>()
  for (const structure of structures)
    for (const deployment of structure.deployments)
      uris.add(
        `iglu:${structure.vendor}/${structure.name}/${structure.format}/${deployment.version}`,
      )
  return [...uris].sort()
}

/** Links to the registry's pages of the data structures the specification names. */
function StructureLinks(props: { scenario: Scenario; structures: readonly DataStructure[] }) {
  const { scenario, structures } = props
  const named = [
    ...(scenario.event?.source === undefined
      ? []
      : [{ role: 'event', source: scenario.event.source }]),
    ...[...(scenario.entities?.tracked ?? []), ...(scenario.entities?.enriched ?? [])].map(
      (entity) => ({ role: 'entity', source: entity.source }),
    ),
  ]
  const linked = named.flatMap(({ role, source }) => {
    const hash = structureHashOf(source, structures)
    return hash === null ? [] : [{ role, source, hash }]
  })
  if (linked.length === 0) return null
  return (
    <p class="muted">
      Data structures:{' '}
      {linked.map(({ role, source, hash }, index) => (
        <span key={`${role}-${source}`}>
          {index > 0 ? ', ' : ''}
          {role === 'event' ? 'event ' : 'entity '}
          <a href={href('data-structures', hash, { version: source.split('/').pop() })}>
            {source.replace(/^iglu:/, '')}
          </a>
        </span>
      ))}
    </p>
  )
}

/** An event specification: edit it with a live compatibility verdict, publish or deprecate it, and read its history. */
export function ScenarioPage(props: {
  plans: TrackingPlanApi
  registry: RegistryApi
  id: string
  query: URLSearchParams
}) {
  const isNew = props.id === 'new'
  const [loaded, reload] = useLoad(async (): Promise<Loaded> => {
    const [answer, products, applications, structures] = await Promise.all([
      isNew ? Promise.resolve(null) : props.plans.getScenario(props.id),
      props.plans.listDataProducts(),
      props.plans.listSourceApplications(),
      props.registry.list(),
    ])
    return { answer, products, applications, sources: deployedSources(structures), structures }
  }, [props.plans, props.id])
  const number = (name: string) => {
    const value = props.query.get(name)
    return value === null ? null : Number(value)
  }
  return (
    <main>
      <p>
        <a href={href('tracking-plan')}>← Tracking plan</a>
      </p>
      <Status loaded={loaded} what="the event specification">
        {({ answer, products, applications, sources, structures }) => {
          const scenario: Scenario = answer?.data[0] ?? {
            name: '',
            ...(props.query.get('dataProductId') === null
              ? {}
              : { dataProductId: props.query.get('dataProductId') ?? '' }),
          }
          return (
            <>
              <h1>
                {isNew ? 'New event specification' : <bdi>{scenario.name}</bdi>}{' '}
                {!isNew && (
                  <span class={`status ${scenario.status ?? ''}`}>
                    {scenario.status}, version {scenario.version}
                  </span>
                )}
              </h1>
              {!isNew && <StructureLinks scenario={scenario} structures={structures} />}
              <ScenarioEditor
                key={`${scenario.id ?? 'new'}-${scenario.version ?? ''}`}
                plans={props.plans}
                scenario={scenario}
                readProblems={answer?.errors ?? []}
                products={products}
                applications={applications}
                sources={sources}
                onSaved={(saved) =>
                  isNew ? navigate(href('event-specs', saved.id ?? '')) : reload()
                }
              />
              {answer !== null && (
                <section aria-labelledby="triggers-heading">
                  <h2 id="triggers-heading">Triggers</h2>
                  <TriggerList
                    plans={props.plans}
                    triggers={Array.isArray(scenario.triggers) ? scenario.triggers : []}
                  />
                </section>
              )}
              {answer !== null && (
                <section aria-labelledby="history-heading">
                  <h2 id="history-heading">History</h2>
                  <ScenarioHistory
                    plans={props.plans}
                    id={props.id}
                    history={answer.includes}
                    from={number('from')}
                    to={number('to')}
                    onPick={(from, to) =>
                      navigate(href('event-specs', props.id, { from, to }), { replace: true })
                    }
                  />
                </section>
              )}
            </>
          )
        }}
      </Status>
    </main>
  )
}
