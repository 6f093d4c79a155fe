import { useState } from 'preact/hooks'
import type { DataStructure, RegistryApi } from '../../api/registry.js'
import { ErrorNote } from '../../components/status.js'
import { customDataText, parseCustomData } from './custom-data.js'

/** The structure's metadata: hidden, its type, and custom data, saved with PATCH (merged). */
export function MetadataEditor(props: {
  registry: RegistryApi
  structure: DataStructure
  onSaved: () => void
}) {
  const { meta } = props.structure
  const [hidden, setHidden] = useState(meta.hidden === true)
  const [schemaType, setSchemaType] = useState(meta.schemaType ?? '')
  const [customData, setCustomData] = useState(customDataText(meta.customData))
  const [error, setError] = useState<unknown>(null)
  const [saved, setSaved] = useState(false)

  async function save(event: Event) {
    event.preventDefault()
    setError(null)
    setSaved(false)
    try {
      await props.registry.patchMeta(props.structure.hash, {
        hidden,
        schemaType: schemaType === '' ? null : schemaType,
        customData: parseCustomData(customData),
      })
      setSaved(true)
      props.onSaved()
    } catch (failure) {
      setError(failure)
    }
  }

  return (
    <form class="stacked" onSubmit={(e) => void save(e)} aria-label="Metadata">
      <label class="inline">
        <input
          type="checkbox"
          checked={hidden}
          onChange={(e) => setHidden(e.currentTarget.checked)}
        />
        Hidden
      </label>
      <label>
        Type
        <select value={schemaType} onChange={(e) => setSchemaType(e.currentTarget.value)}>
          <option value="">none</option>
          <option value="event">event</option>
          <option value="entity">entity</option>
        </select>
      </label>
      <label>
        Custom data (one key=value a line, or a JSON object)
        <textarea
          rows={3}
          value={customData}
          onInput={(e) => setCustomData(e.currentTarget.value)}
        />
      </label>
      <ErrorNote error={error} />
      {saved && <p role="status">Metadata saved.</p>}
      <button type="submit">Save metadata</button>
    </form>
  )
}
