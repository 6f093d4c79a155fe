import type { Arrival } from '../inspection.service.js'
import {
  fromWireBad,
  fromWireGood,
  toWireBad,
  toWireGood,
  type MessageEnd,
  type WireGood,
} from './event-store-wire.js'

/**
 * Stored events told to another thread as they arrive (see docs/inspection-thread.md): the live
 * streams subscribe on the main thread, and the inspection thread sends each stored event's text
 * only while at least one is subscribed there.
 */

type ArrivalMessage =
  | { readonly kind: 'good'; readonly event: WireGood }
  | { readonly kind: 'bad'; readonly event: string }
type Listening = { readonly listening: boolean }

/**
 * The inspection thread's side: tells the other end of each event `subscribe` reports while the
 * other end listens. Returns the function that stops.
 */
export function sendArrivals(
  subscribe: (listener: (arrival: Arrival) => void) => () => void,
  end: MessageEnd,
): () => void {
  let unsubscribe: (() => void) | null = null
  const send = (arrival: Arrival) =>
    end.postMessage(
      (arrival.kind === 'good'
        ? { kind: 'good', event: toWireGood(arrival.event) }
        : { kind: 'bad', event: toWireBad(arrival.event) }) satisfies ArrivalMessage,
    )
  const listener = (message: unknown) => {
    const { listening } = message as Listening
    if (listening && unsubscribe === null) unsubscribe = subscribe(send)
    if (!listening && unsubscribe !== null) {
      unsubscribe()
      unsubscribe = null
    }
  }
  end.on('message', listener)
  return () => {
    end.off('message', listener)
    unsubscribe?.()
    unsubscribe = null
  }
}

/** The main thread's side: subscribers to the events the other end stores (one that throws is reported). */
export function receiveArrivals(end: MessageEnd, onSubscriberError: (error: unknown) => void) {
  const listeners = new Set<(arrival: Arrival) => void>()
  const onArrival = (message: unknown) => {
    const sent = message as ArrivalMessage
    const arrival: Arrival =
      sent.kind === 'good'
        ? { kind: 'good', event: fromWireGood(sent.event) }
        : { kind: 'bad', event: fromWireBad(sent.event) }
    for (const listener of listeners)
      try {
        listener(arrival)
      } catch (error) {
        onSubscriberError(error)
      }
  }
  end.on('message', onArrival)
  return {
    /** Calls `listener` with each event stored from now on; returns the unsubscribe function. */
    subscribe(listener: (arrival: Arrival) => void): () => void {
      listeners.add(listener)
      if (listeners.size === 1) end.postMessage({ listening: true } satisfies Listening)
      return () => {
        if (!listeners.delete(listener) || listeners.size > 0) return
        end.postMessage({ listening: false } satisfies Listening)
      }
    },
    stop: () => end.off('message', onArrival),
  }
}
