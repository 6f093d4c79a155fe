import type { ComponentChildren } from 'preact'
import type { Loaded } from './use-load.js'

/** What a page shows while its data loads, or when it failed: the server's own message. */
export function Status<T>(props: {
  loaded: Loaded<T>
  what: string
  children: (value: T) => ComponentChildren
}) {
  const { loaded } = props
  if (loaded.state === 'loading')
    return (
      <p class="muted" role="status">
        Loading {props.what}…
      </p>
    )
  if (loaded.state === 'failed')
    return (
      <p class="error" role="alert">
        Could not load {props.what}: {loaded.error.message}
      </p>
    )
  return <>{props.children(loaded.value)}</>
}

export function ErrorNote(props: { error: unknown }) {
  if (props.error === null || props.error === undefined) return null
  const message = props.error instanceof Error ? props.error.message : String(props.error)
  return (
    <p class="error" role="alert">
      {message}
    </p>
  )
}
