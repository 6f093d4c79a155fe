// `npm test` and `npm run test:full`: the type checks (the server's and the console's) run beside
// vitest instead of before it. Vitest's first seconds (its global setup loads and migrates the
// test cluster) keep one core busy, and the checks took ~11 s before any test started on a slow
// machine. Their errors are printed after vitest's report; the exit code is 1 when either failed.
// Arguments are vitest's.
import { spawn } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc')
const vitest = path.join(root, 'node_modules', 'vitest', 'vitest.mjs')

/** Runs node with `args` in the project; resolves to its exit code and, if captured, its output. */
function run(args, capture) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, {
      cwd: root,
      stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    })
    let output = ''
    child.stdout?.on('data', (chunk) => (output += chunk))
    child.stderr?.on('data', (chunk) => (output += chunk))
    child.on('error', (error) => resolve({ code: 1, output: `${output}${error.message}\n` }))
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output }))
  })
}

const typeChecks = (async () => {
  for (const args of [
    ['-p', 'tsconfig.json', '--noEmit'],
    ['-p', 'web/tsconfig.json'],
  ]) {
    const checked = await run([tsc, ...args], true)
    if (checked.code !== 0)
      return { code: checked.code, output: `tsc ${args.join(' ')}:\n${checked.output}` }
  }
  return { code: 0, output: '' }
})()
const tests = run([vitest, 'run', ...process.argv.slice(2)], false)

const [checked, tested] = await Promise.all([typeChecks, tests])
if (checked.code !== 0) process.stderr.write(`\nThe type checks failed.\n${checked.output}`)
process.exit(checked.code !== 0 || tested.code !== 0 ? 1 : 0)
