/** Source of the current time; tests pass a fake one. */
export interface Clock {
  now(): Date
}

export const systemClock: Clock = { now: () => new Date() }
