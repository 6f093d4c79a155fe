import type { checkCompatibility } from '../compatibility/index.js'

/**
 * The compatibility engine for the `floe schemas` commands, loaded at their first comparison. It is
 * the largest part of Floe's code (refa's automata, ~1.1 MB of the bundle), and `floe start` never
 * runs it on its own thread (its checks run in worker processes, which load it themselves): kept out
 * of the start's module, it is not parsed at every start.
 */
export async function checkCompatibilityOnDemand(
  ...args: Parameters<typeof checkCompatibility>
): Promise<ReturnType<typeof checkCompatibility>> {
  const engine = await import('../compatibility/index.js')
  return engine.checkCompatibility(...args)
}
