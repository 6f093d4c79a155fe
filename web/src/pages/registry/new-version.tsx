import { OverrideRefusal, type DeploymentOverride } from './deployment-override.js'
import { useState } from 'preact/hooks'
import type { ApiClient } from '../../api/client.js'
import type { DataStructure, RegistryApi, RequestResult } from '../../api/registry.js'
import { laidOut } from '../../components/json-layout.js'
import { JsonLines, type LineNote } from '../../components/json-lines.js'
// The registry's CLI places its findings with the same function.
import { lineOfPointer } from '../../../../src/shared/json-pointer-line.js'
import { ErrorNote } from '../../components/status.js'
import { useLoad } from '../../components/use-load.js'
import { href } from '../../router.js'
import { namesAnotherStructure, schemaKeyOf, type SchemaKey } from './schema-key.js'

const STARTER = `{
  "$schema": "http://iglucentral.com/schemas/com.snowplowanalytics.self-desc/schema/jsonschema/1-0-0#",
  "description": "",
  "self": { "vendor": "com.example", "name": "my_event", "format": "jsonschema", "version": "1-0-0" },
  "type": "object",
  "properties": {},
  "additionalProperties": false
}
`

/** A finding `"/pointer: message [linter]"` as a note on the line the pointer names. */
function notesOf(text: string, result: RequestResult): { lines: LineNote[]; loose: LineNote[] } {
  const lines: LineNote[] = []
  const loose: LineNote[] = []
  const levels = [
    ['error', result.errors],
    ['warning', result.warnings],
    ['info', result.info],
  ] as const
  for (const [level, messages] of levels)
    for (const message of messages ?? []) {
      const pointer = /^(\/[^:\s]*): /.exec(message)?.[1]
      const line = pointer === undefined ? null : lineOfPointer(text, pointer)
      if (line === null) loose.push({ line: 0, level, text: message })
      else lines.push({ line, level, text: message })
    }
  return { lines, loose }
}

interface Validated {
  readonly text: string
  readonly result: RequestResult
  readonly key: SchemaKey | null
}

/** The editor's first text, and the structure it is a new version of (null for a new one). */
interface Start {
  readonly from: string | null
  readonly version: string | null
  readonly text: string
  readonly structure: DataStructure | null
}

/**
 * Write a schema (or a new version of one), validate it, with each lint finding under the line it
 * names, then deploy it to DEV, then promote it to PROD.
 */
export function NewVersion(props: {
  api: ApiClient
  registry: RegistryApi
  query: URLSearchParams
}) {
  const from = props.query.get('from')
  const fromVersion = props.query.get('version')
  const [loaded] = useLoad(async (): Promise<Start> => {
    if (from === null || fromVersion === null)
      return { from, version: fromVersion, text: STARTER, structure: null }
    const [text, structure] = await Promise.all([
      props.registry.versionText(from, fromVersion),
      props.registry.get(from),
    ])
    return { from, version: fromVersion, text: laidOut(text), structure }
  }, [from, fromVersion])
  // Another structure's or version's editor is never shown while this one's text loads.
  const start =
    loaded.state === 'ready' && loaded.value.from === from && loaded.value.version === fromVersion
      ? loaded.value
      : null
  return (
    <main>
      <p>
        <a href={from === null ? href('data-structures') : href('data-structures', from)}>← Back</a>
      </p>
      <h1>{from === null ? 'New data structure' : 'New version'}</h1>
      {start !== null ? (
        <Editor
          key={`${start.from ?? ''}@${start.version ?? ''}`}
          {...props}
          initial={start.text}
          structure={start.structure}
        />
      ) : loaded.state === 'failed' ? (
        <ErrorNote error={loaded.error} />
      ) : (
        <p class="muted">Loading…</p>
      )}
    </main>
  )
}

function Editor(props: {
  api: ApiClient
  registry: RegistryApi
  initial: string
  structure: DataStructure | null
}) {
  const { structure } = props
  const [text, setText] = useState(props.initial)
  // Chosen only for a new structure; one made from another starts from that one's type.
  const [schemaType, setSchemaType] = useState(
    structure?.meta.schemaType === 'entity' ? 'entity' : 'event',
  )
  const keepsItsType = structure !== null && !namesAnotherStructure(text, structure)
  const typeSent = keepsItsType ? (structure.meta.schemaType ?? null) : schemaType
  const [validated, setValidated] = useState<Validated | null>(null)
  const [deployed, setDeployed] = useState<{ env: 'DEV' | 'PROD'; result: RequestResult }[]>([])
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const [message, setMessage] = useState('')

  async function run(work: () => Promise<void>) {
    setBusy(true)
    setError(null)
    try {
      await work()
    } catch (failure) {
      setError(failure)
    } finally {
      setBusy(false)
    }
  }

  const validate = () =>
    run(async () => {
      let schema: unknown
      try {
        schema = JSON.parse(text)
      } catch (failure) {
        setValidated(null)
        throw new Error(`The schema is not JSON: ${(failure as Error).message}`, {
          cause: failure,
        })
      }
      const result = await props.registry.validate({ schemaType: typeSent, hidden: false }, schema)
      setValidated({ text, result, key: schemaKeyOf(schema) })
      setDeployed([])
    })

  /** The last deployment tried, to send again as the person overrules its refusal. */
  const [tried, setTried] = useState<'DEV' | 'PROD' | null>(null)
  const deploy = (target: 'DEV' | 'PROD', override: DeploymentOverride = {}) =>
    run(async () => {
      if (validated?.key == null) return
      setTried(target)
      const result = await props.registry.deploy(
        {
          ...validated.key,
          source: target === 'DEV' ? 'VALIDATED' : 'DEV',
          target,
          message: message.trim() === '' ? `Deployed to ${target} from the console` : message,
          ...(target === 'DEV' && validated.result.contentHash !== undefined
            ? { contentHash: validated.result.contentHash }
            : {}),
          ...(override.allowMisversioned === true ? { allowMisversioned: true } : {}),
        },
        { patch: override.patch === true },
      )
      setDeployed((previous) => [...previous, { env: target, result }])
    })

  const isCurrent = validated !== null && validated.text === text
  const notes = validated === null ? null : notesOf(validated.text, validated.result)
  const inDev = deployed.find((d) => d.env === 'DEV')
  const inProd = deployed.find((d) => d.env === 'PROD')
  return (
    <>
      <label>
        Schema (JSON)
        <textarea
          class="code-editor"
          rows={18}
          spellcheck={false}
          value={text}
          onInput={(e) => setText(e.currentTarget.value)}
        />
      </label>
      <div class="toolbar">
        {keepsItsType ? (
          <p class="muted">
            Type: {typeSent ?? 'none'}, the data structure’s (its metadata, changed on its page)
          </p>
        ) : (
          <label>
            Type
            <select value={schemaType} onChange={(e) => setSchemaType(e.currentTarget.value)}>
              <option value="event">event</option>
              <option value="entity">entity</option>
            </select>
          </label>
        )}
        <button type="button" disabled={busy} onClick={() => void validate()}>
          Validate
        </button>
      </div>
      <ErrorNote error={error} />
      {tried !== null && (
        <OverrideRefusal error={error} busy={busy} onOverride={(o) => void deploy(tried, o)} />
      )}
      {validated !== null && notes !== null && (
        <section aria-labelledby="validation-heading">
          <h2 id="validation-heading">
            {validated.result.success ? 'Valid' : 'Not valid'}
            {isCurrent ? '' : ' (the text has changed since: validate again)'}
          </h2>
          <p role="status">{validated.result.message}</p>
          {validated.result.versionChange !== undefined && (
            <p class={validated.result.versionChange.misversioned ? 'warning' : 'muted'}>
              Against {validated.result.versionChange.previousVersion}: a{' '}
              {validated.result.versionChange.changeType} change; suggested version{' '}
              {validated.result.versionChange.suggestedVersion}
              {validated.result.versionChange.misversioned
                ? ' (this version number understates it)'
                : ''}
              .
            </p>
          )}
          {notes.loose.map((note, index) => (
            <p key={index} class={`line-note ${note.level}`} role="note">
              {note.level}: {note.text}
            </p>
          ))}
          <JsonLines text={validated.text} notes={notes.lines} label="Validated schema" />
          {validated.result.success && isCurrent && (
            <div class="toolbar">
              <label>
                Deployment message
                <input value={message} onInput={(e) => setMessage(e.currentTarget.value)} />
              </label>
              <button
                type="button"
                disabled={busy || inDev !== undefined}
                onClick={() => void deploy('DEV')}
              >
                Deploy to DEV
              </button>
              <button
                type="button"
                disabled={busy || inDev === undefined || inProd !== undefined || !props.api.isAdmin}
                title={props.api.isAdmin ? undefined : 'Only an admin key may deploy to PROD'}
                onClick={() => void deploy('PROD')}
              >
                Promote to PROD
              </button>
              {!props.api.isAdmin && (
                <span class="muted">Only an admin key may deploy to PROD.</span>
              )}
            </div>
          )}
          {deployed.map((d) => (
            <p key={d.env} role="status" class="success">
              {d.result.message}{' '}
              {d.result.dataStructureHash !== undefined && (
                <a href={href('data-structures', d.result.dataStructureHash)}>
                  Open the data structure
                </a>
              )}
            </p>
          ))}
        </section>
      )}
    </>
  )
}
