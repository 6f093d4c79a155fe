import { useMemo, useRef, useState } from 'preact/hooks'
import { ApiClient } from './api/client.js'
import { RegistryApi } from './api/registry.js'
import { forgetSession, keepSession, storedSession, type Session } from './api/session.js'
import { SignIn } from './pages/sign-in.js'
import { SessionEnded } from './pages/session-ended.js'
import { usePageFocus } from './components/page-focus.js'
import { SessionRenewals } from './components/use-load.js'
import { DataStructureList } from './pages/registry/data-structure-list.js'
import { DataStructurePage } from './pages/registry/data-structure-page.js'
import { NewVersion } from './pages/registry/new-version.js'
import { TrackingPlanApi } from './api/tracking-plans.js'
import { DataProductPage } from './pages/tracking-plan/data-product-page.js'
import { ScenarioPage } from './pages/tracking-plan/scenario-page.js'
import { TrackingPlanOverview } from './pages/tracking-plan/tracking-plan-overview.js'
import { BadRowsPage } from './pages/inspector/bad-rows-page.js'
import { EventDetail } from './pages/inspector/event-detail.js'
import { InspectorPage } from './pages/inspector/inspector-page.js'
import { consoleLink, href, useRoute, type Route } from './router.js'

/** The console: sign-in until there is a session, then the page the URL's fragment names. */
export function App() {
  const [session, setSession] = useState<Session | null>(storedSession)
  /** The token was refused (it expired, or its key was revoked): signing in again keeps the page. */
  const [lapsed, setLapsed] = useState(false)
  /** Each sign-in that renews a lapsed session: what its token was refused loads again. */
  const [renewals, setRenewals] = useState(0)
  const route = useRoute()
  // A page is its path: another structure, event or specification is another page, started
  // afresh (a form never shows the one left behind); a change of the query stays on the page.
  const page = JSON.stringify(route.segments)
  const signOut = () => {
    forgetSession()
    setLapsed(false)
    setSession(null)
  }
  const lapse = () => {
    forgetSession()
    setLapsed(true)
  }
  // One client per organization: a token signed in for again (with the same key or another of the
  // organization) goes on in the same one, so the pages and what was typed in them stay.
  const api = useMemo(
    () => (session === null ? null : new ApiClient(session, lapse)),
    [session?.organizationId],
  )
  const content = useRef<HTMLDivElement>(null)
  usePageFocus(content, page)
  const signedInAgain = (next: Session) => {
    keepSession(next)
    if (api !== null && next.organizationId === api.organizationId) api.renew(next)
    setLapsed(false)
    setSession(next)
    setRenewals((n) => n + 1)
  }
  if (session === null || api === null)
    return (
      <SignIn
        onSignedIn={(next) => {
          keepSession(next)
          setSession(next)
        }}
      />
    )
  return (
    <>
      {/* The fragment holds the page, so the link moves the focus instead of following itself. */}
      <a class="skip-link" href="#content" onClick={skipToContent}>
        Skip to content
      </a>
      <header class="top-bar">
        <a class="brand" href={href('data-structures')}>
          Floe
        </a>
        <nav aria-label="Main">
          <a
            href={href('data-structures')}
            aria-current={route.segments[0] === 'data-structures' ? 'page' : undefined}
          >
            Data structures
          </a>
          <a
            href={href('tracking-plan')}
            aria-current={
              ['tracking-plan', 'data-products', 'event-specs'].includes(route.segments[0] ?? '')
                ? 'page'
                : undefined
            }
          >
            Tracking plan
          </a>
          <a
            href={href('events')}
            aria-current={route.segments[0] === 'events' ? 'page' : undefined}
          >
            Events
          </a>
        </nav>
        <span class="session" title={`API key ${session.apiKeyId}`}>
          Organization {session.organizationId}
          {session.isAdmin ? ' · admin' : ''}
        </span>
        <button type="button" class="link" onClick={signOut}>
          Sign out
        </button>
      </header>
      <div id="content" tabIndex={-1} ref={content}>
        <SessionRenewals.Provider value={renewals}>
          <Page key={page} route={route} api={api} />
        </SessionRenewals.Provider>
      </div>
      {lapsed && <SessionEnded page={content} onSignedIn={signedInAgain} />}
    </>
  )
}

function skipToContent(event: MouseEvent): void {
  event.preventDefault()
  document.getElementById('content')?.focus()
}

function Page(props: { route: Route; api: ApiClient }) {
  const { route, api } = props
  const registry = useMemo(() => new RegistryApi(api), [api])
  const plans = useMemo(() => new TrackingPlanApi(api), [api])
  const [first, second] = route.segments
  if (first === 'bad-rows') return <BadRowsPage query={route.query} />
  if (first === 'events' && second === undefined) return <InspectorPage query={route.query} />
  if (first === 'events' && second !== undefined)
    return (
      <EventDetail eventId={second} back={consoleLink(route.query.get('back'), href('events'))} />
    )
  if (first === 'tracking-plan') return <TrackingPlanOverview plans={plans} />
  if (first === 'data-products' && second !== undefined)
    return <DataProductPage plans={plans} id={second} />
  if (first === 'event-specs' && second !== undefined)
    return <ScenarioPage plans={plans} registry={registry} id={second} query={route.query} />
  if (first === undefined || (first === 'data-structures' && second === undefined))
    return <DataStructureList registry={registry} search={route.query.get('q') ?? ''} />
  if (first === 'data-structures' && second === 'new')
    return <NewVersion api={api} registry={registry} query={route.query} />
  if (first === 'data-structures' && second !== undefined)
    return (
      <DataStructurePage
        api={api}
        registry={registry}
        plans={plans}
        hash={second}
        query={route.query}
      />
    )
  return (
    <main>
      <h1>Not found</h1>
      <p>
        No page at <code>{location.hash}</code>.{' '}
        <a href={href('data-structures')}>Data structures</a>
      </p>
    </main>
  )
}
