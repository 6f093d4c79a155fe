/** The index of the first value ≥ `bound` in ascending `values` (their length when none is). */
export function firstAtOrAfter(values: ArrayLike<number>, bound: number): number {
  let low = 0
  let high = values.length
  while (low < high) {
    const middle = (low + high) >>> 1
    if ((values[middle] as number) < bound) low = middle + 1
    else high = middle
  }
  return low
}
