import { newEntityRow, type EntityRow } from './entity-rules.js'

/** How many of an entity the event may carry, at least or at most: a whole number, or empty. */
function CountField(props: {
  label: string
  value: string
  placeholder: string
  onInput: (value: string) => void
}) {
  return (
    <label class="inline">
      {props.label}
      <input
        type="number"
        min={0}
        step={1}
        value={props.value}
        placeholder={props.placeholder}
        onInput={(e) => props.onInput(e.currentTarget.value)}
      />
    </label>
  )
}

/**
 * The event specification's entity rules, one group of fields each: the entity's data structure,
 * how many of it the event carries (at least, at most), the specification's own schema for it,
 * and a comment. The rows are the editor's state; `entityReferences` reads them when saving.
 */
export function EntityRulesField(props: {
  rows: readonly EntityRow[]
  /** Deployed data structures to choose from (a datalist of the editor's). */
  sourcesList: string
  onChange: (rows: EntityRow[]) => void
}) {
  const change = (key: number, fields: Partial<EntityRow>) =>
    props.onChange(props.rows.map((row) => (row.key === key ? { ...row, ...fields } : row)))
  return (
    <fieldset class="entity-rules">
      <legend>Entities</legend>
      {props.rows.length === 0 && <p class="muted">None: the event may carry any entities.</p>}
      {props.rows.map((row, index) => (
        <fieldset key={row.key} class="stacked" aria-label={`Entity ${index + 1}`}>
          <legend>Entity {index + 1}</legend>
          <label>
            Data structure (Iglu URI)
            <input
              list={props.sourcesList}
              value={row.source}
              placeholder="iglu:com.example/my_entity/jsonschema/1-0-0"
              onInput={(e) => change(row.key, { source: e.currentTarget.value })}
            />
          </label>
          <CountField
            label="At least"
            value={row.minCardinality}
            placeholder="0"
            onInput={(minCardinality) => change(row.key, { minCardinality })}
          />
          <CountField
            label="At most"
            value={row.maxCardinality}
            placeholder="any number"
            onInput={(maxCardinality) => change(row.key, { maxCardinality })}
          />
          <label>
            Schema: the specification's own rules for the entity (JSON Schema, optional)
            <textarea
              class="code-editor short"
              rows={4}
              spellcheck={false}
              value={row.schema}
              onInput={(e) => change(row.key, { schema: e.currentTarget.value })}
            />
          </label>
          <label>
            Comment
            <input
              value={row.comment}
              onInput={(e) => change(row.key, { comment: e.currentTarget.value })}
            />
          </label>
          <button
            type="button"
            class="link"
            onClick={() => props.onChange(props.rows.filter((kept) => kept.key !== row.key))}
          >
            Remove entity {index + 1}
          </button>
        </fieldset>
      ))}
      <button type="button" onClick={() => props.onChange([...props.rows, newEntityRow()])}>
        Add an entity
      </button>
    </fieldset>
  )
}
