import { FAILURE_COLUMN, VERDICT_COLUMN, inspection, type FlatEvent } from '../../api/inspection.js'
import { JsonLines } from '../../components/json-lines.js'
import { Status } from '../../components/status.js'
import { useLoad } from '../../components/use-load.js'
import { href } from '../../router.js'
import { cellText, groupedFields, isEntityColumn } from './event-fields.js'

interface FailureData {
  failureType?: string
  errors?: { message?: string; source?: string; path?: string }[]
  schema?: string | null
  data?: unknown
}

interface VerdictData {
  isValid?: boolean
  eventSpecification?: { id?: string; name?: string; version?: number }
  errors?: { rule?: string; path?: string; message?: string; specificationVersion?: number }[]
}

const listOf = <T,>(value: unknown): T[] => (Array.isArray(value) ? (value as T[]) : [])
const pretty = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`

/** One event on its own page (`#/events/{event_id}`): the table it came from keeps its place. */
export function EventDetail(props: { eventId: string; back: string }) {
  const [loaded] = useLoad(async () => {
    const page = await inspection.events({
      filters: [{ column: 'event_id', values: [props.eventId] }],
      validEvents: null,
      search: '',
      timeRange: { start: null, end: null },
      sorting: null,
      page: 1,
      pageSize: 1,
    })
    const event = page.events[0]
    if (event === undefined) throw new Error(`no stored event has the id ${props.eventId}`)
    return event
  }, [props.eventId])
  return (
    <main>
      <p>
        <a href={props.back}>← Events</a>
      </p>
      <Status loaded={loaded} what="the event">
        {(event) => <EventView event={event} />}
      </Status>
    </main>
  )
}

function EventView(props: { event: FlatEvent }) {
  const { event } = props
  const failures = listOf<FailureData>(event[FAILURE_COLUMN])
  const verdicts = listOf<VerdictData>(event[VERDICT_COLUMN])
  const entities = Object.entries(event).filter(
    ([field, value]) =>
      isEntityColumn(field) &&
      field !== FAILURE_COLUMN &&
      field !== VERDICT_COLUMN &&
      value !== null &&
      value !== undefined,
  )
  return (
    <>
      <h1>
        <bdi>{cellText(event.event_name ?? event.event)}</bdi>{' '}
        <span class={`status ${failures.length > 0 ? 'deprecated' : 'published'}`}>
          {failures.length > 0 ? 'failed' : 'good'}
        </span>
      </h1>
      <p class="muted">
        <bdi>{cellText(event.app_id)}</bdi> · {cellText(event.collector_tstamp)} ·{' '}
        <bdi>{cellText(event.event_id)}</bdi>
      </p>

      {failures.length > 0 && (
        <section aria-labelledby="failure-heading" class="failure">
          <h2 id="failure-heading">Why it failed</h2>
          <p>
            <a href={href('bad-rows', { eid: cellText(event.event_id) })}>
              The bad row, with the raw payload
            </a>
          </p>
          {failures.map((failure, index) => (
            <div key={index}>
              <p>
                <strong>{failure.failureType ?? 'failure'}</strong>
                {failure.schema == null ? '' : ` against ${failure.schema}`}
              </p>
              <ul>
                {(failure.errors ?? []).map((error, n) => (
                  <li key={n}>
                    {error.path === undefined ? '' : <code>{error.path}</code>}{' '}
                    <bdi>{error.message}</bdi>
                    {error.source === undefined ? '' : <span class="muted"> ({error.source})</span>}
                  </li>
                ))}
              </ul>
              {failure.data !== undefined && failure.data !== null && (
                <JsonLines text={pretty(failure.data)} label="The data that failed" />
              )}
            </div>
          ))}
        </section>
      )}

      <section aria-labelledby="spec-heading">
        <h2 id="spec-heading">Event specification</h2>
        {verdicts.length === 0 ? (
          <p class="muted">Not matched to an event specification.</p>
        ) : (
          verdicts.map((verdict, index) => (
            <div
              key={index}
              class={`verdict ${verdict.isValid === true ? 'compatible' : 'incompatible'}`}
            >
              <p>
                {verdict.isValid === true ? 'Conforms to' : 'Violates'}{' '}
                {verdict.eventSpecification?.id === undefined ? (
                  <bdi>{verdict.eventSpecification?.name ?? 'its specification'}</bdi>
                ) : (
                  <a href={href('event-specs', verdict.eventSpecification.id)}>
                    {verdict.eventSpecification.name ?? verdict.eventSpecification.id}
                  </a>
                )}
                {verdict.eventSpecification?.version === undefined
                  ? ''
                  : `, version ${verdict.eventSpecification.version}`}
              </p>
              <ul>
                {(verdict.errors ?? []).map((error, n) => (
                  <li key={n}>
                    <strong>{error.rule}</strong> at <code>{error.path}</code>: {error.message}
                  </li>
                ))}
              </ul>
            </div>
          ))
        )}
      </section>

      {entities.length > 0 && (
        <section aria-labelledby="entities-heading">
          <h2 id="entities-heading">Event and entities</h2>
          {entities.map(([field, value]) => (
            <div key={field}>
              <h3>
                <code>{field}</code>
              </h3>
              <JsonLines text={pretty(value)} label={field} />
            </div>
          ))}
        </section>
      )}

      <section aria-labelledby="fields-heading">
        <h2 id="fields-heading">Fields</h2>
        <div class="field-groups">
          {groupedFields(event).map((group) => (
            <div key={group.name} class="field-group">
              <h3>{group.name}</h3>
              <dl>
                {group.fields.map(([field, value]) => (
                  <div key={field}>
                    <dt>{field}</dt>
                    <dd>{cellText(value)}</dd>
                  </div>
                ))}
              </dl>
            </div>
          ))}
        </div>
      </section>
    </>
  )
}
