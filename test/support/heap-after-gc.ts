import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

// Heap measurements in tests: V8's collector, run on demand (a test process is not started with
// --expose-gc; the flag is set at run time and `gc` taken from a new context, where V8 defines it).

setFlagsFromString('--expose-gc')
/** A full garbage collection, now. */
export const collectGarbage = runInNewContext('gc') as () => void

/** The heap in use once the garbage is collected, in bytes. */
export function heapUsedAfterGc(): number {
  collectGarbage()
  return process.memoryUsage().heapUsed
}
