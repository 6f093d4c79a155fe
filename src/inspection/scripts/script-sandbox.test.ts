import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ScriptCall } from '../pipeline/enrichments/javascript-script.js'
import { ScriptSandbox } from './script-sandbox.js'

// The sandbox in this thread (the pool runs the same code in worker threads).

let sandbox: ScriptSandbox
beforeAll(async () => {
  sandbox = await ScriptSandbox.create({ timeoutMs: 100, memoryBytes: 16 * 2 ** 20 })
})
afterAll(() => sandbox.dispose())

let scripts = 0
/** A call of a new script (each its own runtime) on an event of this app ID. */
function scriptOf(source: string, config: Record<string, unknown> = {}) {
  const script = { id: `script-${++scripts}`, source, config }
  return (appId: string | null = 'shop', headers: string[] = []): ScriptCall => ({
    script,
    fields: { app_id: appId, collector_tstamp: '2026-11-26 10:00:00.000', br_cookies: 1 },
    contexts: null,
    unstructEvent: null,
    derivedContexts: null,
    headers,
  })
}

describe('the JavaScript sandbox', () => {
  it("gives the script Enrich's event object, the configuration and the headers", () => {
    const call = scriptOf(
      `function process(event, params, headers) {
        event.setApp_id(event.getApp_id() + '-seen')
        const agent = headers.find((h) => /^user-agent:/i.test(h))
        return [{ schema: 'iglu:com.acme/seen/jsonschema/1-0-0',
                  data: { at: event.getCollector_tstamp(), cookies: event.getBr_cookies(),
                          team: params.team, agent: agent, user: event.getUser_id() } }]
      }`,
      { team: 'web' },
    )
    expect(sandbox.run(call('shop', ['User-Agent: curl/8']))).toEqual({
      kind: 'returned',
      output: JSON.stringify([
        {
          schema: 'iglu:com.acme/seen/jsonschema/1-0-0',
          data: {
            at: '2026-11-26 10:00:00.000',
            cookies: 1,
            team: 'web',
            agent: 'User-Agent: curl/8',
            user: null,
          },
        },
      ]),
      changed: { app_id: 'shop-seen' },
      eraseDerivedContexts: false,
    })
  })

  it('fails an answer past 5 000 000 characters, whether the script returns it or throws it', () => {
    const returned = scriptOf(`function process() {
      return [{ schema: 'iglu:com.acme/big/jsonschema/1-0-0', data: { s: 'x'.repeat(5000001) } }]
    }`)
    const thrown = scriptOf(`function process() { throw new Error('y'.repeat(5000001)) }`)
    for (const call of [returned, thrown])
      expect(sandbox.run(call())).toEqual({
        kind: 'failed',
        message:
          "Error during execution of JavaScript function: [the script's answer is longer than 5000000 characters]",
      })
    // The runtime is still of use.
    const small = scriptOf(`function process() { return [] }`)
    expect(sandbox.run(small())).toMatchObject({ kind: 'returned', output: '[]' })
  })

  it('drops an event on event.drop(), and keeps globals from one event to the next', () => {
    const call = scriptOf(`let seen = 0
      function process(event) {
        seen++
        if (event.getApp_id() === 'drop-all') event.drop()
        return [{ schema: 'iglu:com.acme/count/jsonschema/1-0-0', data: { seen } }]
      }`)
    expect(sandbox.run(call('drop-all'))).toEqual({ kind: 'dropped' })
    const answer = sandbox.run(call('shop'))
    expect(answer.kind === 'returned' && JSON.parse(answer.output)[0].data).toEqual({ seen: 2 })
  })

  it('turns a throw into the failure Enrich reports, naming where', () => {
    const answer = sandbox.run(
      scriptOf(`function process(event) {
  throw new Error('no basket for ' + event.getApp_id())
}`)(),
    )
    expect(answer).toEqual({
      kind: 'failed',
      message:
        'Error during execution of JavaScript function: [Error: no basket for shop in <eval> at line number 2 at column number 18]',
    })
    expect(sandbox.run(scriptOf('function process() { throw "plain" }')())).toEqual({
      kind: 'failed',
      message: 'Error during execution of JavaScript function: [plain]',
    })
  })

  it('answers a compile error for every event, and a missing process as a failure', () => {
    const broken = scriptOf('function process(event) { return [ ; }')
    for (let i = 0; i < 2; i++) {
      const answer = sandbox.run(broken())
      expect(answer.kind).toBe('failed')
      expect(answer.kind === 'failed' && answer.message).toMatch(
        /^Error compiling JavaScript function: \[SyntaxError: .* in <eval> at line number 1/,
      )
    }
    const answer = sandbox.run(scriptOf('const notProcess = 1')())
    expect(answer.kind === 'failed' && answer.message).toMatch(/'process' is not defined/)
  })

  it('stops an endless loop at its time budget, and the script runs again for the next event', () => {
    const call = scriptOf(`function process(event) {
      if (event.getApp_id() === 'loop') while (true) {}
      return null
    }`)
    expect(sandbox.run(call('loop'))).toEqual({
      kind: 'failed',
      message:
        'Error during execution of JavaScript function: [the script ran longer than its budget of 100 ms]',
    })
    expect(sandbox.run(call('shop'))).toMatchObject({ kind: 'returned', output: '[]' })
  })

  it('stops a huge allocation at its memory budget, and starts the script afresh after it', () => {
    const call = scriptOf(`function process(event) {
      if (event.getApp_id() === 'hog') return [new Array(1e8).fill(0).length]
      return []
    }`)
    const answer = sandbox.run(call('hog'))
    expect(answer.kind === 'failed' && answer.message).toMatch(
      /the script ran out of its memory budget of 16 MiB/,
    )
    expect(sandbox.run(call('shop'))).toMatchObject({ kind: 'returned', output: '[]' })
  })

  it('reaches nothing of the host: no process, require, module loader, fetch or timers', () => {
    const answer = sandbox.run(
      scriptOf(`function process() {
        return [{ schema: 'iglu:com.acme/reach/jsonschema/1-0-0', data: {
          host: [typeof globalThis.process, typeof require, typeof fetch, typeof setTimeout,
                 typeof globalThis.std, typeof globalThis.os, typeof import.meta].join(',')
        } }]
      }`)(),
    )
    // `import.meta` outside a module is a syntax error: the script does not compile at all.
    expect(answer.kind).toBe('failed')
    const reach = sandbox.run(
      scriptOf(`function process() {
        return [{ schema: 'iglu:com.acme/reach/jsonschema/1-0-0', data: {
          host: [typeof globalThis.process, typeof require, typeof fetch, typeof setTimeout,
                 typeof globalThis.std, typeof globalThis.os].join(',')
        } }]
      }`)(),
    )
    expect(reach.kind === 'returned' && JSON.parse(reach.output)[0].data.host).toBe(
      'function,undefined,undefined,undefined,undefined,undefined',
    )
  })
})
