import { useEffect, useState } from 'preact/hooks'
import { FAILURE_COLUMN, VERDICT_COLUMN, inspection, type FlatEvent } from '../../api/inspection.js'
import { ErrorNote, Status } from '../../components/status.js'
import { useLoad } from '../../components/use-load.js'
import { href, navigate } from '../../router.js'
import { ColumnPicker } from './column-picker.js'
import { cellText, columnValue } from './event-fields.js'
import { bucketsOver, EventTimeline } from './event-timeline.js'
import {
  linkTo,
  PAGE_SIZES,
  queryOf,
  timelineRange,
  viewOf,
  type InspectorView,
} from './inspector-state.js'
import { useLiveStream } from './live-stream.js'

const TIMELINE_BUCKETS = 60
const PRESETS: readonly [string, number | null][] = [
  ['15 min', 15 * 60_000],
  ['1 hour', 60 * 60_000],
  ['24 hours', 24 * 60 * 60_000],
  ['All', null],
]

/** `datetime-local` text (local time) for an ISO instant, and back. */
const localText = (iso: string | null) => {
  if (iso === null) return ''
  const date = new Date(iso)
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 19)
}
const isoOf = (local: string) => (local === '' ? null : new Date(local).toISOString())

/** The verdict of a row: ✓ or ✗ and the specification, or nothing when it matched none. */
function verdictText(event: FlatEvent): string {
  const verdict = (
    event[VERDICT_COLUMN] as
      { isValid?: boolean; eventSpecification?: { name?: string } }[] | undefined
  )?.[0]
  if (verdict === undefined) return ''
  return `${verdict.isValid === true ? '✓' : '✗'} ${verdict.eventSpecification?.name ?? ''}`
}

/** Good and failed events in one table, with the Micro 4.x query's filters, a timeline and live updates. */
export function InspectorPage(props: { query: URLSearchParams }) {
  const view = viewOf(props.query)
  const go = (changes: Partial<InspectorView>) =>
    navigate(linkTo({ ...view, page: 1, ...changes }), { replace: true })
  const [generation, setGeneration] = useState(0)
  const refresh = () => setGeneration((g) => g + 1)
  const live = useLiveStream(refresh)
  const viewKey = linkTo(view)

  const [page] = useLoad(() => inspection.events(queryOf(view)), [viewKey, generation])
  const [counts] = useLoad(() => inspection.counts(), [generation])
  const [timeline] = useLoad(async () => {
    const { start, end, caption } = timelineRange(view, Date.now())
    const answer = await inspection.timeline(bucketsOver(start, end, TIMELINE_BUCKETS))
    return { points: answer.points, caption }
  }, [view.start, view.end, generation])

  const [search, setSearch] = useState(view.search)
  useEffect(() => setSearch(view.search), [view.search])

  const [resetError, setResetError] = useState<unknown>(null)
  async function reset() {
    if (!window.confirm('Delete every stored event, good and bad? This cannot be undone.')) return
    setResetError(null)
    try {
      await inspection.reset()
      refresh()
    } catch (failure) {
      setResetError(failure)
    }
  }

  return (
    <main class="inspector">
      <header class="page-header">
        <h1>Events</h1>
        <div class="toolbar">
          {counts.state === 'ready' && (
            <span class="muted" role="status" aria-label="Counts">
              {counts.value.good} good · {counts.value.bad} bad
            </span>
          )}
          <span class={live.paused ? 'warning' : 'success'}>
            {live.paused
              ? `Paused${live.waiting > 0 ? `: ${live.waiting} new` : ''}`
              : live.connected
                ? 'Live'
                : 'Connecting…'}
          </span>
          <button type="button" onClick={() => live.setPaused(!live.paused)}>
            {live.paused ? 'Resume' : 'Pause'}
          </button>
          <a href={href('bad-rows')}>Bad rows</a>
          <button type="button" class="danger" onClick={() => void reset()}>
            Reset
          </button>
        </div>
      </header>
      <ErrorNote error={resetError} />

      <div class="toolbar">
        <div role="group" aria-label="Kind of events" class="segmented">
          {(['all', 'good', 'failed'] as const).map((kind) => (
            <button
              key={kind}
              type="button"
              aria-pressed={view.kind === kind}
              onClick={() => go({ kind })}
            >
              {kind === 'all' ? 'All' : kind === 'good' ? 'Good' : 'Failed'}
            </button>
          ))}
        </div>
        <form
          class="search-form"
          onSubmit={(e) => {
            e.preventDefault()
            go({ search })
          }}
        >
          <label>
            Search any field, entity or property
            <input type="search" value={search} onInput={(e) => setSearch(e.currentTarget.value)} />
          </label>
          <button type="submit">Search</button>
        </form>
        <label>
          From
          <input
            type="datetime-local"
            step={1}
            value={localText(view.start)}
            onChange={(e) => go({ start: isoOf(e.currentTarget.value) })}
          />
        </label>
        <label>
          To
          <input
            type="datetime-local"
            step={1}
            value={localText(view.end)}
            onChange={(e) => go({ end: isoOf(e.currentTarget.value) })}
          />
        </label>
        <div role="group" aria-label="Time range" class="segmented">
          {PRESETS.map(([label, span]) => (
            <button
              key={label}
              type="button"
              onClick={() =>
                go(
                  span === null
                    ? { start: null, end: null }
                    : { start: new Date(Date.now() - span).toISOString(), end: null },
                )
              }
            >
              {label}
            </button>
          ))}
        </div>
        <ColumnPicker columns={view.columns} onApply={(columns) => go({ columns })} />
      </div>

      {timeline.state === 'ready' && (
        <EventTimeline
          points={timeline.value.points}
          caption={timeline.value.caption}
          onPick={(bucket) => go({ start: bucket.start, end: bucket.end })}
        />
      )}

      <Status loaded={page} what="the events">
        {(answer) => (
          <>
            <Pager
              view={view}
              totalItems={answer.totalItems}
              shown={answer.events.length}
              go={go}
            />
            <EventTable view={view} events={answer.events} go={go} />
          </>
        )}
      </Status>
    </main>
  )
}

function Pager(props: {
  view: InspectorView
  totalItems: number
  shown: number
  go: (c: Partial<InspectorView>) => void
}) {
  const { view, totalItems } = props
  const first = totalItems === 0 ? 0 : (view.page - 1) * view.pageSize + 1
  const last = (view.page - 1) * view.pageSize + props.shown
  const lastPage = Math.max(1, Math.ceil(totalItems / view.pageSize))
  // A page past the last (a shared link, events reset since): say so, and lead back to the last.
  const pastTheEnd = props.shown === 0 && view.page > lastPage
  return (
    <div class="toolbar pager">
      <span role="status" aria-label="Showing">
        {pastTheEnd
          ? `Page ${view.page.toLocaleString('en')} is past the last (${lastPage.toLocaleString('en')}) of ${totalItems.toLocaleString('en')}`
          : `Showing ${first.toLocaleString('en')}–${last.toLocaleString('en')} of ${totalItems.toLocaleString('en')}`}
      </span>
      <button
        type="button"
        disabled={view.page <= 1}
        onClick={() =>
          navigate(linkTo({ ...view, page: pastTheEnd ? lastPage : view.page - 1 }), {
            replace: true,
          })
        }
      >
        Newer
      </button>
      <button
        type="button"
        disabled={view.page >= lastPage}
        onClick={() => navigate(linkTo({ ...view, page: view.page + 1 }), { replace: true })}
      >
        Older
      </button>
      <label class="inline">
        Rows
        <select
          value={view.pageSize}
          onChange={(e) => props.go({ pageSize: Number(e.currentTarget.value) })}
        >
          {PAGE_SIZES.map((size) => (
            <option key={size} value={size}>
              {size}
            </option>
          ))}
        </select>
      </label>
    </div>
  )
}

function EventTable(props: {
  view: InspectorView
  events: readonly FlatEvent[]
  go: (c: Partial<InspectorView>) => void
}) {
  const { view } = props
  const open = (event: FlatEvent) =>
    navigate(href('events', String(event.event_id), { back: linkTo(view) }))
  const sortBy = (column: string) =>
    props.go({ sort: column, desc: view.sort === column ? !view.desc : false })
  /** Arrow keys move between rows, Enter opens one. */
  const onKey = (event: KeyboardEvent, row: FlatEvent) => {
    const target = event.currentTarget as HTMLElement
    if (event.key === 'Enter') open(row)
    else if (event.key === 'ArrowDown') (target.nextElementSibling as HTMLElement | null)?.focus()
    else if (event.key === 'ArrowUp') (target.previousElementSibling as HTMLElement | null)?.focus()
    else return
    event.preventDefault()
  }
  if (props.events.length === 0) return <p class="muted">No stored event matches.</p>
  return (
    <div class="table-scroll">
      <table class="data-table events-table">
        <thead>
          <tr>
            <th scope="col">Kind</th>
            {view.columns.map((column) => (
              <th
                key={column}
                scope="col"
                aria-sort={
                  view.sort === column ? (view.desc ? 'descending' : 'ascending') : undefined
                }
              >
                <button type="button" class="link" onClick={() => sortBy(column)}>
                  {column}
                  {view.sort === column ? (view.desc ? ' ▼' : ' ▲') : ''}
                </button>
              </th>
            ))}
            <th scope="col">Specification</th>
          </tr>
        </thead>
        <tbody>
          {props.events.map((event) => {
            const failed = Array.isArray(event[FAILURE_COLUMN])
            return (
              <tr
                key={String(event.event_id)}
                tabIndex={0}
                class="clickable"
                onClick={() => open(event)}
                onKeyDown={(e) => onKey(e, event)}
              >
                <td class={failed ? 'error' : 'success'}>{failed ? 'failed' : 'good'}</td>
                {view.columns.map((column) => (
                  <td key={column}>{cellText(columnValue(event, column))}</td>
                ))}
                <td>{verdictText(event)}</td>
              </tr>
            )
          })}
        </tbody>
      </table>
    </div>
  )
}
