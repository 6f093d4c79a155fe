import { useCallback, useEffect, useState } from 'preact/hooks'

export type Loaded<T> =
  | { readonly state: 'loading' }
  | { readonly state: 'failed'; readonly error: Error }
  | { readonly state: 'ready'; readonly value: T }

/**
 * Runs `load` when the component mounts and whenever a key changes; an answer that arrives after a
 * newer request started is dropped, so a slow old answer never replaces a newer one.
 */
export function useLoad<T>(
  load: () => Promise<T>,
  keys: readonly unknown[],
): [Loaded<T>, () => void] {
  const [loaded, setLoaded] = useState<Loaded<T>>({ state: 'loading' })
  const [generation, setGeneration] = useState(0)
  useEffect(() => {
    let current = true
    setLoaded((previous) => (previous.state === 'ready' ? previous : { state: 'loading' }))
    load().then(
      (value) => current && setLoaded({ state: 'ready', value }),
      (error: unknown) =>
        current &&
        setLoaded({
          state: 'failed',
          error: error instanceof Error ? error : new Error(String(error)),
        }),
    )
    return () => {
      current = false
    }
  }, [...keys, generation])
  const reload = useCallback(() => setGeneration((g) => g + 1), [])
  return [loaded, reload]
}
