import { inspection, type BadRow } from '../../api/inspection.js'
import { JsonLines } from '../../components/json-lines.js'
import { Status } from '../../components/status.js'
import { useLoad } from '../../components/use-load.js'
import { href, navigate } from '../../router.js'

/** Bad rows a page shows, newest first. */
const PAGE = 100

interface ParsedRow {
  readonly row: BadRow
  readonly type: string
  readonly time: string
  readonly eventId: string | null
  readonly appId: string | null
  readonly messages: { schema: string | null; path: string | null; text: string }[]
}

/** A bad row read for people: its type, its messages (schema, path, text), the event it was. */
function parsed(row: BadRow): ParsedRow {
  let bad: { schema?: string; data?: { failure?: unknown; payload?: unknown } } = {}
  try {
    bad = JSON.parse(row.errors[1] ?? '{}') as typeof bad
  } catch {
    // a bad row is always JSON; without it, the summary is all there is
  }
  const type = /\/([^/]+)\/jsonschema\//.exec(bad.schema ?? '')?.[1] ?? 'bad row'
  const failure = (bad.data?.failure ?? {}) as { messages?: unknown[] }
  const messages = (failure.messages ?? []).flatMap((message) => {
    const m = (message ?? {}) as Record<string, unknown>
    const error = (m.error ?? {}) as { dataReports?: { message?: string; path?: string }[] }
    const schema = typeof m.schemaKey === 'string' ? m.schemaKey : null
    if (Array.isArray(error.dataReports))
      return error.dataReports.map((report) => ({
        schema,
        path: report.path ?? null,
        text: report.message ?? '',
      }))
    return [
      { schema, path: typeof m.field === 'string' ? m.field : null, text: JSON.stringify(message) },
    ]
  })
  const enriched = ((bad.data?.payload ?? {}) as { enriched?: { event_id?: string } }).enriched
  const parameters = row.rawEvent?.parameters ?? {}
  return {
    row,
    type,
    time: row.collectorPayload?.context?.timestamp ?? '',
    eventId: enriched?.event_id ?? parameters.eid ?? null,
    appId: parameters.aid ?? null,
    messages:
      messages.length === 0 ? [{ schema: null, path: null, text: row.errors[0] ?? '' }] : messages,
  }
}

/**
 * Bad rows, newest first, as Enrich writes them: what failed and the raw request it came in.
 * `?eid=` shows the bad row of one event, opened.
 */
export function BadRowsPage(props: { query: URLSearchParams }) {
  const eventId = props.query.get('eid')
  // The page is in the URL (`?from=`), so that a reload or Back keeps it.
  const given = Number(props.query.get('from'))
  const offset = Number.isInteger(given) && given > 0 ? given : 0
  const setOffset = (from: number) =>
    navigate(href('bad-rows', { from: from === 0 ? null : from }), { replace: false })
  const [loaded] = useLoad(async () => {
    const [rows, counts] = await Promise.all([
      eventId === null ? inspection.badRows(PAGE, offset) : inspection.badRowsOfEvent(eventId),
      inspection.counts(),
    ])
    return { rows: rows.map(parsed), total: counts.bad, from: offset }
  }, [offset, eventId])
  return (
    <main>
      <p>
        <a href={href('events')}>← Events</a>
      </p>
      <h1>Bad rows</h1>
      <p class="muted">
        Every request or event the pipeline refused, with why and the raw payload. Events that
        failed validation also appear, as failed events, in the events table.
      </p>
      <Status loaded={loaded} what="the bad rows">
        {({ rows, total, from }) => {
          const shown = rows
          return (
            <>
              <p role="status" aria-label="Showing">
                {eventId === null
                  ? `Showing ${shown.length === 0 ? 0 : from + 1}–${from + shown.length} of ${total}, newest first`
                  : `${shown.length} bad row${shown.length === 1 ? '' : 's'} of event ${eventId}`}
              </p>
              {eventId === null && (
                <div class="toolbar" role="group" aria-label="Pages">
                  <button
                    type="button"
                    disabled={from === 0}
                    onClick={() => setOffset(Math.max(0, from - PAGE))}
                  >
                    Newer
                  </button>
                  <button
                    type="button"
                    disabled={from + shown.length >= total}
                    onClick={() => setOffset(from + PAGE)}
                  >
                    Older
                  </button>
                </div>
              )}
              {shown.map((r, index) => (
                <details key={index} class="bad-row" open={eventId !== null}>
                  <summary>
                    <span class="error">{r.type}</span> · {r.time} · {r.appId ?? 'no app ID'} ·{' '}
                    {r.messages[0]?.text}
                  </summary>
                  <ul>
                    {r.messages.map((m, n) => (
                      <li key={n}>
                        {m.schema === null ? '' : <code>{m.schema}</code>}{' '}
                        {m.path === null ? '' : <code>{m.path}</code>} {m.text}
                      </li>
                    ))}
                  </ul>
                  <h3>Raw payload</h3>
                  <JsonLines
                    text={`${JSON.stringify(r.row.collectorPayload, null, 2)}\n`}
                    label="Raw payload"
                  />
                </details>
              ))}
            </>
          )
        }}
      </Status>
    </main>
  )
}
