import { useEffect, useState } from 'preact/hooks'
import {
  problemsOf,
  type DataProduct,
  type Problem,
  type Scenario,
  type SourceApplication,
  type SpecCompatibility,
  type SpecificationStatus,
  type TrackingPlanApi,
} from '../../api/tracking-plans.js'
import { ErrorNote } from '../../components/status.js'
import { useSessionRenewals } from '../../components/use-load.js'
import { LiveVerdict, Problems } from './compatibility-note.js'
import { SourceApplicationsField } from './source-applications-field.js'
import { EntityRulesField } from './entity-rules-field.js'
import { entityReferences, entityRows } from './entity-rules.js'

/** How long the editor waits after the last keystroke before asking for a verdict. */
const CHECK_AFTER_MS = 400

const jsonText = (value: unknown) =>
  value === undefined ? '' : `${JSON.stringify(value, null, 2)}\n`

/** A JSON field of the form: empty is absent; anything else must parse (the error names the field). */
function parsedField(label: string, text: string): unknown {
  if (text.trim() === '') return undefined
  try {
    return JSON.parse(text)
  } catch (failure) {
    throw new Error(`${label} is not JSON: ${(failure as Error).message}`, { cause: failure })
  }
}

export function ScenarioEditor(props: {
  plans: TrackingPlanApi
  scenario: Scenario
  readProblems: readonly Problem[]
  products: readonly DataProduct[]
  applications: readonly SourceApplication[]
  sources: readonly string[]
  onSaved: (scenario: Scenario) => void
}) {
  const { scenario } = props
  const [name, setName] = useState(scenario.name)
  const [description, setDescription] = useState(scenario.description ?? '')
  const [dataProductId, setDataProductId] = useState(scenario.dataProductId ?? '')
  const [eventSource, setEventSource] = useState(scenario.event?.source ?? '')
  const [eventSchema, setEventSchema] = useState(jsonText(scenario.event?.schema))
  const [entities, setEntities] = useState(() => entityRows(scenario.entities?.tracked ?? []))
  const [apps, setApps] = useState(new Set(scenario.sourceApplications ?? []))
  const [message, setMessage] = useState('')
  const [verdict, setVerdict] = useState<SpecCompatibility | null>(null)
  const [verdictError, setVerdictError] = useState<string | null>(null)
  const [problems, setProblems] = useState<readonly Problem[]>(props.readProblems)
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)

  /** The scenario the form describes, with `status` when one is asked for (publish, deprecate). */
  function written(status?: SpecificationStatus): Scenario {
    const schema = parsedField('The event schema', eventSchema) as object | undefined
    const tracked = entityReferences(entities)
    const { id: _id, version: _version, status: current, ...kept } = scenario
    return {
      ...kept,
      ...(scenario.id === undefined ? {} : { id: scenario.id }),
      ...(status !== undefined ? { status } : current !== undefined ? { status: current } : {}),
      name,
      ...(description === '' ? { description: undefined } : { description }),
      ...(dataProductId === '' ? { dataProductId: undefined } : { dataProductId }),
      event:
        eventSource === '' && schema === undefined
          ? {}
          : {
              ...(eventSource === '' ? {} : { source: eventSource }),
              ...(schema === undefined ? {} : { schema }),
            },
      entities: { ...scenario.entities, tracked },
      ...(apps.size === 0 && scenario.sourceApplications === undefined
        ? {}
        : { sourceApplications: [...apps] }),
    }
  }

  // The verdict follows the edits: the event and entity schemas against their sources. It is
  // asked again once signed in again, in case the ended session's token was refused for it.
  const renewals = useSessionRenewals()
  useEffect(() => {
    let current = true
    const timer = setTimeout(() => {
      let draft: Scenario
      try {
        draft = written()
      } catch (failure) {
        setVerdict(null)
        setVerdictError((failure as Error).message)
        return
      }
      props.plans.checkCompatibility(draft).then(
        (answer) => {
          if (!current) return
          setVerdict(answer)
          setVerdictError(null)
        },
        (failure: unknown) => {
          if (!current) return
          setVerdict(null)
          setVerdictError(failure instanceof Error ? failure.message : String(failure))
        },
      )
    }, CHECK_AFTER_MS)
    return () => {
      current = false
      clearTimeout(timer)
    }
  }, [eventSource, eventSchema, entities, renewals])

  async function save(status?: SpecificationStatus) {
    setBusy(true)
    setError(null)
    try {
      const draft = written(status)
      const fallback =
        status === undefined ? 'Edited in the console' : `Marked ${status} in the console`
      const answer = await props.plans.writeScenario(
        draft,
        message.trim() === '' ? fallback : message,
      )
      setProblems(answer.errors)
      setMessage('')
      const saved = answer.data[0]
      if (saved !== undefined) props.onSaved(saved)
    } catch (failure) {
      const refused = problemsOf(failure)
      if (refused === null) setError(failure)
      else setProblems(refused)
    } finally {
      setBusy(false)
    }
  }

  /**
   * A status button saves the form as Save does: only once the browser's checks pass (a number
   * field holding `5e` reads as empty, and would drop its bound).
   */
  const saveAs = (status: SpecificationStatus) => (event: MouseEvent) => {
    const form = (event.currentTarget as HTMLButtonElement).form
    if (form !== null && !form.reportValidity()) return
    void save(status)
  }

  const isNew = scenario.id === undefined
  return (
    <form
      class="stacked wide"
      aria-label="Event specification"
      onSubmit={(e) => (e.preventDefault(), void save())}
    >
      <label>
        Name
        <input required value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </label>
      <label>
        Description
        <textarea
          rows={2}
          value={description}
          onInput={(e) => setDescription(e.currentTarget.value)}
        />
      </label>
      <label>
        Data product
        <select value={dataProductId} onChange={(e) => setDataProductId(e.currentTarget.value)}>
          <option value="">none</option>
          {props.products.map((product) => (
            <option key={product.id} value={product.id}>
              {product.name}
            </option>
          ))}
        </select>
      </label>
      <label>
        Event data structure (Iglu URI)
        <input
          list="deployed-sources"
          value={eventSource}
          placeholder="iglu:com.example/my_event/jsonschema/1-0-0"
          onInput={(e) => setEventSource(e.currentTarget.value)}
        />
        <datalist id="deployed-sources">
          {props.sources.map((source) => (
            <option key={source} value={source} />
          ))}
        </datalist>
      </label>
      <label>
        Event schema: the specification's own rules, narrower than the data structure (JSON Schema,
        optional)
        <textarea
          class="code-editor short"
          rows={8}
          spellcheck={false}
          value={eventSchema}
          onInput={(e) => setEventSchema(e.currentTarget.value)}
        />
      </label>
      <EntityRulesField rows={entities} sourcesList="deployed-sources" onChange={setEntities} />
      <LiveVerdict verdict={verdict} error={verdictError} />
      <SourceApplicationsField applications={props.applications} chosen={apps} onChange={setApps} />
      <label>
        Message for the history
        <input value={message} onInput={(e) => setMessage(e.currentTarget.value)} />
      </label>
      <Problems problems={problems} />
      <ErrorNote error={error} />
      <div class="toolbar">
        <button type="submit" disabled={busy}>
          {isNew ? 'Create event specification' : 'Save'}
        </button>
        {!isNew && scenario.status !== 'published' && (
          <button type="button" disabled={busy} onClick={saveAs('published')}>
            Publish
          </button>
        )}
        {!isNew && scenario.status !== 'deprecated' && (
          <button type="button" disabled={busy} onClick={saveAs('deprecated')}>
            Deprecate
          </button>
        )}
        {!isNew && scenario.status !== 'draft' && (
          <button type="button" disabled={busy} onClick={saveAs('draft')}>
            Back to draft
          </button>
        )}
      </div>
    </form>
  )
}
