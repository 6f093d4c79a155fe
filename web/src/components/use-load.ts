import { createContext } from 'preact'
import { useCallback, useContext, useEffect, useRef, useState } from 'preact/hooks'
import { ApiError } from '../api/client.js'

export type Loaded<T> =
  | { readonly state: 'loading' }
  | { readonly state: 'failed'; readonly error: Error }
  | { readonly state: 'ready'; readonly value: T }

/**
 * How many times a lapsed session was signed in for again (the app provides it). A load whose
 * token was refused (401) runs again at each, so that the page goes on where it was.
 */
export const SessionRenewals = createContext(0)

/** The number of sign-ins that renewed a lapsed session, to do again what its token was refused. */
export const useSessionRenewals = (): number => useContext(SessionRenewals)

const isRefusedToken = (error: Error) => error instanceof ApiError && error.status === 401

/**
 * Runs `load` when the component mounts and whenever a key changes; an answer that arrives after a
 * newer request started is dropped, so a slow old answer never replaces a newer one. While a new
 * answer loads the last one stays shown: a component whose state starts from the value (a form)
 * must be keyed by what it shows. A load refused for the session runs again once signed in again.
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

  const renewals = useSessionRenewals()
  const seenRenewals = useRef(renewals)
  const refused = loaded.state === 'failed' && isRefusedToken(loaded.error)
  useEffect(() => {
    if (seenRenewals.current === renewals) return
    seenRenewals.current = renewals
    if (refused) reload()
  }, [renewals])
  return [loaded, reload]
}
