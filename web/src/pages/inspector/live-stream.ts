import { useEffect, useRef, useState } from 'preact/hooks'

/** How often, at most, the table reloads while events stream in. */
const REFRESH_EVERY_MS = 1000

/**
 * Follows `/micro/stream` (server-sent events): while live, each stored event (or a reset)
 * schedules one reload, at most once a second; while paused, new events are only counted. The
 * stream opening again after it broke (the server restarted, the network came back) reloads too:
 * what happened meanwhile was never streamed, and a load that failed then shows its error.
 */
export function useLiveStream(onChange: () => void): {
  paused: boolean
  waiting: number
  connected: boolean
  setPaused: (paused: boolean) => void
} {
  const [paused, setPausedState] = useState(false)
  const [waiting, setWaiting] = useState(0)
  const [connected, setConnected] = useState(false)
  const pausedRef = useRef(false)
  const change = useRef(onChange)
  change.current = onChange

  useEffect(() => {
    const source = new EventSource('/micro/stream')
    let timer: ReturnType<typeof setTimeout> | null = null
    const arrived = () => {
      if (pausedRef.current) {
        setWaiting((n) => n + 1)
        return
      }
      timer ??= setTimeout(() => {
        timer = null
        change.current()
      }, REFRESH_EVERY_MS)
    }
    source.addEventListener('good', arrived)
    source.addEventListener('bad', arrived)
    source.addEventListener('reset', () => change.current())
    let broken = false
    source.addEventListener('open', () => {
      setConnected(true)
      if (broken && !pausedRef.current) change.current()
      broken = false
    })
    source.addEventListener('error', () => {
      broken = true
      setConnected(false)
    })
    return () => {
      if (timer !== null) clearTimeout(timer)
      source.close()
    }
  }, [])

  const setPaused = (next: boolean) => {
    pausedRef.current = next
    setPausedState(next)
    if (!next) {
      setWaiting(0)
      change.current()
    }
  }
  return { paused, waiting, connected, setPaused }
}
