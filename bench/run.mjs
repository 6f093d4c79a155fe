// Runs every benchmark scenario in its own process and writes BENCHMARKS.md.
import { execFileSync } from 'node:child_process'
import { cpus, totalmem } from 'node:os'
import { writeFileSync } from 'node:fs'

const scenarios = ['compatibility', 'memory-flood']
const results = scenarios.map((name) => JSON.parse(execFileSync(process.execPath, [new URL(`./${name}.mjs`, import.meta.url).pathname], { encoding: 'utf8' }).trim().split('\n').pop()))
const machine = `${cpus()[0]?.model ?? 'unknown CPU'} × ${cpus().length}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}`
const lines = [
  '# Benchmarks',
  '',
  `Machine: ${machine}. Date: ${new Date().toISOString().slice(0, 10)}. Produced by \`npm run bench\`.`,
  '',
  '| Scenario | Figure | Baseline | Ratio |',
  '|---|---|---|---|',
  ...results.filter((r) => r.scenario === 'compatibility').map((r) => `| ${r.scenario} (${r.pairs} pairs, ${(r.decidedShare * 100).toFixed(1)}% decided) | median ${r.medianMs.toFixed(2)} ms, p99 ${r.p99Ms.toFixed(2)} ms | median ${r.baselineMedianMs.toFixed(2)} ms (Ajv compiles both schemas) | ${r.ratioToBaseline.toFixed(2)}× |`),
  '',
  ...results.filter((r) => r.scenario === 'memory-flood').flatMap((r) => [
    `Memory under a flood of ${r.events} events with \`--max-events ${r.maxEvents}\` (${r.eventsPerSecond} events/s): resident memory ${r.rssAtTenthMb} MB at 10%, ${r.rssAtHalfMb} MB at 50%, ${r.rssEndMb} MB at the end (peak during the flood ${r.rssPeakDuringFloodMb} MB; ${r.rssStartMb} MB just after start-up). Counts correct: ${r.countsCorrect}; eviction correct: ${r.evictionCorrect}.`,
    '',
  ]),
]
writeFileSync(new URL('../BENCHMARKS.md', import.meta.url), lines.join('\n'))
console.log(lines.join('\n'))
