/** The timeline's axis labels, set here so that the y axis can measure its own. */
export const AXIS_FONT = '12px system-ui, sans-serif'
/** uPlot's defaults: a tick's length and the gap between it and its label. */
const TICK_SIZE = 10
const LABEL_GAP = 5

/**
 * The width the y axis needs for its longest label ("1,000" at a thousand events a bar), its tick
 * and the gap between them: a fixed width cut the first digits off larger counts.
 */
export function yAxisWidth(labels: readonly string[], measure: (label: string) => number): number {
  const widest = Math.max(0, ...labels.map(measure))
  return Math.max(40, Math.ceil(widest + TICK_SIZE + LABEL_GAP + 2))
}
