import quickjsVariant from '@jitl/quickjs-wasmfile-release-sync'
import {
  newQuickJSWASMModuleFromVariant,
  shouldInterruptAfterDeadline,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSRuntime,
  type QuickJSSyncVariant,
  type QuickJSWASMModule,
} from 'quickjs-emscripten-core'

// The package's types describe its CommonJS form; loaded as ESM, its default export is the variant.
const variant = quickjsVariant as unknown as QuickJSSyncVariant
import {
  SCRIPT_FIELDS,
  type ScriptAnswer,
  type ScriptCall,
} from '../pipeline/enrichments/javascript-script.js'

/** How much one script may take of one event: wall time, and the memory of its runtime. */
export interface ScriptLimits {
  readonly timeoutMs: number
  readonly memoryBytes: number
}

/** The largest answer a script may give (its returned entities and the fields it set), as JSON text. */
const MAX_ANSWER_CHARS = 5_000_000
/** What the sandbox answers instead of an answer past MAX_ANSWER_CHARS. */
const TOO_LONG = '{"kind":"too-long"}'

/**
 * What runs inside the sandbox before the script: the event object Enrich gives scripts (a getter
 * and a setter per field, JSON-text accessors for the entities, `drop()`), and the entry point the
 * host calls with one event's JSON, which answers JSON. Floe's own code, run in QuickJS.
 */
function prelude(fields: readonly string[]): string {
  return `"use strict";
(() => {
  const FIELDS = ${JSON.stringify(fields)};
  const DROPPED = { dropped: true };
  const accessor = (field) => field.charAt(0).toUpperCase() + field.slice(1);
  const describe = (error) => {
    if (error === DROPPED) return null;
    const text = error instanceof Error ? error.name + ": " + error.message : String(error);
    const at = error instanceof Error && typeof error.stack === "string"
      ? /script\\.js:(\\d+):(\\d+)/.exec(error.stack) : null;
    return at === null ? text : text + " in <eval> at line number " + at[1] + " at column number " + at[2];
  };
  const config = JSON.parse(globalThis.__floeConfig);
  delete globalThis.__floeConfig;
  // An answer past the bound never leaves the sandbox: copied out, it would fill the host's heap.
  const bounded = (text) => (text.length > ${MAX_ANSWER_CHARS} ? '{"kind":"too-long"}' : text);
  globalThis.__floeRun = (input) => bounded(answer(input));
  const answer = (input) => {
    const call = JSON.parse(input);
    const values = call.fields;
    const changed = {};
    const entities = { erase: false };
    const event = {};
    for (const field of FIELDS) {
      event["get" + accessor(field)] = () => (values[field] === undefined ? null : values[field]);
      event["set" + accessor(field)] = (value) => {
        values[field] = value === undefined ? null : value;
        changed[field] = values[field];
      };
    }
    event.getContexts = () => ("contexts" in entities ? entities.contexts : call.contexts);
    event.setContexts = (value) => { entities.contexts = value == null ? null : String(value); };
    event.getUnstruct_event = () => ("unstruct" in entities ? entities.unstruct : call.unstructEvent);
    event.setUnstruct_event = (value) => { entities.unstruct = value == null ? null : String(value); };
    event.getDerived_contexts = () => call.derivedContexts;
    event.setDerived_contexts = () => {};
    event.eraseDerived_contexts = () => { entities.erase = true; };
    event.drop = () => { throw DROPPED; };
    try {
      const result = process(event, config, call.headers);
      const output = result === null || result === undefined ? "[]" : JSON.stringify(result);
      return JSON.stringify({
        kind: "returned",
        output: output === undefined ? "null" : output,
        changed,
        contexts: entities.contexts,
        unstructEvent: entities.unstruct,
        eraseDerivedContexts: entities.erase,
      });
    } catch (error) {
      if (error === DROPPED) return '{"kind":"dropped"}';
      return JSON.stringify({
        kind: "failed",
        message: "Error during execution of JavaScript function: [" + describe(error) + "]",
      });
    }
  };
})();`
}

/** One script's runtime: its own heap and globals, kept across events as Enrich keeps its engine. */
export interface ScriptRuntime {
  readonly runtime: QuickJSRuntime
  readonly context: QuickJSContext
  readonly entry: QuickJSHandle | null
  /** Set when the script did not compile (or its top level threw): every event answers it. */
  readonly compileError: string | null
}

const isBudget = (reason: string) =>
  reason === 'interrupted' || /out of memory|stack overflow/i.test(reason)

/** Which budget a script spent, for its failure message. */
const budgetReason = (limits: ScriptLimits, reason: string) =>
  reason === 'interrupted'
    ? `the script ran longer than its budget of ${limits.timeoutMs} ms`
    : `the script ran out of its memory budget of ${Math.round(limits.memoryBytes / 2 ** 20)} MiB (${reason})`

/** An error the engine raised, read and let go: its message, and `Name: message in <eval> at …` for people. */
function engineError(
  context: QuickJSContext,
  handle: QuickJSHandle,
): { readonly reason: string; readonly text: string } {
  const dumped: unknown = context.dump(handle)
  handle.dispose()
  if (dumped === null || typeof dumped !== 'object' || !('message' in dumped))
    return { reason: String(dumped), text: String(dumped) }
  const { name, message, stack } = dumped as { name?: unknown; message: unknown; stack?: unknown }
  const at = typeof stack === 'string' ? /script\.js:(\d+):(\d+)/.exec(stack) : null
  const text = `${typeof name === 'string' ? `${name}: ` : ''}${String(message)}`
  return {
    reason: String(message),
    text:
      at === null ? text : `${text} in <eval> at line number ${at[1]} at column number ${at[2]}`,
  }
}

/**
 * JavaScript enrichment scripts in QuickJS (WebAssembly): no process, file system, network or
 * module loader; each script in a runtime of its own, with a memory limit and, for each event, a
 * deadline after which the engine interrupts it. Synchronous: the pool runs it in worker threads.
 */
export class ScriptSandbox {
  readonly #runtimes = new Map<string, ScriptRuntime>()

  private constructor(
    private readonly engine: QuickJSWASMModule,
    readonly limits: ScriptLimits,
  ) {}

  static async create(limits: ScriptLimits): Promise<ScriptSandbox> {
    return new ScriptSandbox(await newQuickJSWASMModuleFromVariant(variant), limits)
  }

  #compile(script: ScriptCall['script']): ScriptRuntime {
    const compileBudget = { ...this.limits, timeoutMs: Math.max(1000, 10 * this.limits.timeoutMs) }
    const runtime = this.engine.newRuntime()
    runtime.setMemoryLimit(this.limits.memoryBytes)
    runtime.setMaxStackSize(1024 * 1024)
    const context = runtime.newContext()
    // Compiling and the script's top level get ten budgets (a second at least): a cold start is
    // slower than an event, and a top level that never ends must still end.
    runtime.setInterruptHandler(shouldInterruptAfterDeadline(Date.now() + compileBudget.timeoutMs))
    const failed = (message: string): ScriptRuntime => ({
      runtime,
      context,
      entry: null,
      compileError: `Error compiling JavaScript function: [${message}]`,
    })
    const source = context.evalCode(script.source, 'script.js')
    if (source.error) {
      const { reason, text } = engineError(context, source.error)
      return failed(isBudget(reason) ? budgetReason(compileBudget, reason) : text)
    }
    source.value.dispose()
    const configText = context.newString(JSON.stringify(script.config))
    context.setProp(context.global, '__floeConfig', configText)
    configText.dispose()
    const setUp = context.evalCode(prelude(SCRIPT_FIELDS), 'floe-prelude.js')
    if (setUp.error) return failed(engineError(context, setUp.error).text)
    setUp.value.dispose()
    return {
      runtime,
      context,
      entry: context.getProp(context.global, '__floeRun'),
      compileError: null,
    }
  }

  #forget(id: string): void {
    const kept = this.#runtimes.get(id)
    this.#runtimes.delete(id)
    if (kept === undefined) return
    try {
      kept.entry?.dispose()
      kept.context.dispose()
      kept.runtime.dispose()
    } catch {
      // A runtime left unusable by an exhausted heap is let go as it is.
    }
  }

  /** The script's runtime, compiled at its first use (its top level within ten budgets). */
  prepare(script: ScriptCall['script']): ScriptRuntime {
    let kept = this.#runtimes.get(script.id)
    if (kept === undefined) {
      kept = this.#compile(script)
      this.#runtimes.set(script.id, kept)
    }
    return kept
  }

  /** Runs one event through one script, within the limits. */
  run(call: ScriptCall): ScriptAnswer {
    const id = call.script.id
    const kept = this.prepare(call.script)
    if (kept.compileError !== null || kept.entry === null)
      return { kind: 'failed', message: kept.compileError ?? 'the script has no entry point' }
    const { context, runtime, entry } = kept
    runtime.setInterruptHandler(shouldInterruptAfterDeadline(Date.now() + this.limits.timeoutMs))
    const input = context.newString(JSON.stringify(call))
    const result = context.callFunction(entry, context.undefined, input)
    input.dispose()
    if (result.error) {
      const { reason, text } = engineError(context, result.error)
      // An exhausted heap may leave the runtime unusable: the next event starts a fresh one.
      if (reason !== 'interrupted') this.#forget(id)
      return {
        kind: 'failed',
        message: `Error during execution of JavaScript function: [${isBudget(reason) ? budgetReason(this.limits, reason) : text}]`,
      }
    }
    const text = context.getString(result.value)
    result.value.dispose()
    if (text.length > MAX_ANSWER_CHARS || text === TOO_LONG)
      return {
        kind: 'failed',
        message: `Error during execution of JavaScript function: [the script's answer is longer than ${MAX_ANSWER_CHARS} characters]`,
      }
    const answer = JSON.parse(text) as ScriptAnswer
    // The script's own try/catch may see the engine's out-of-memory error first: still the budget.
    const exhausted =
      answer.kind === 'failed'
        ? /\[InternalError: (out of memory|stack overflow)/.exec(answer.message)
        : null
    if (exhausted === null) return answer
    this.#forget(id)
    return {
      kind: 'failed',
      message: `Error during execution of JavaScript function: [${budgetReason(this.limits, exhausted[1] ?? '')}]`,
    }
  }

  dispose(): void {
    for (const id of [...this.#runtimes.keys()]) this.#forget(id)
  }
}
