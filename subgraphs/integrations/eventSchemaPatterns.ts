/**
 * Regular expressions of data-provider schemas (`pattern`, `patternProperties`) run only when they are
 * proven to run in linear time: `^(\w+\s?)*$` and one 29-character event held the event loop 15 s.
 * RE2 does not install here (the `re2` package downloads or builds a native binary; `re2-wasm` has a
 * fixed 16 MB heap that aborts the process and never frees a pattern), so each pattern is checked by
 * redos-detector, which answers safe only when it can prove no input backtracks without bound, and
 * the rest are refused. The proof can take long on a hostile pattern, so it runs in a worker thread
 * with a deadline; Ajv then compiles through an engine that hands out only proven patterns.
 */
import type { RegExpEngine } from 'ajv/dist/types';
import { Worker } from 'node:worker_threads';
import { appError, ErrorCode } from '../../shared/errors';

/** Longest a pattern may be; longer ones are refused without a proof. */
const MAX_PATTERN_LENGTH = 1000;
/** How long the worker may try to prove one pattern safe; unproven in time = refused. */
const PROOF_TIMEOUT_MS = 250;
/** How long a check may wait for the worker before it is restarted and the pattern refused. */
const WORKER_DEADLINE_MS = 5000;
const VERDICT_CACHE_LIMIT = 10_000;

// The worker lowers its own thread's priority (on Linux a thread has its own nice value): a long
// proof must not take CPU time from the event loop when cores are scarce.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
try { require('node:os').setPriority(19); } catch {}
const { isSafePattern } = require(workerData.detector);
parentPort.on('message', ({ id, pattern }) => {
  let safe = false;
  try {
    safe = isSafePattern(pattern, { unicode: true, timeout: workerData.timeoutMs }).safe;
  } catch {
    safe = false;
  }
  parentPort.postMessage({ id, safe });
});
`;

/** Verdicts by pattern: true = proven linear. */
const verdicts = new Map<string, boolean>();

let worker: Worker | null = null;
let nextId = 0;
const waiting = new Map<number, (safe: boolean) => void>();

function proofWorker(): Worker {
  if (worker) return worker;
  const started = new Worker(WORKER_SOURCE, { eval: true, workerData: { detector: require.resolve('redos-detector'), timeoutMs: PROOF_TIMEOUT_MS } });
  started.on('message', ({ id, safe }: { id: number; safe: boolean }) => {
    waiting.get(id)?.(safe);
    waiting.delete(id);
    // Idle, the worker must not keep the process alive; while a proof runs, it does.
    if (waiting.size === 0) started.unref();
  });
  const fail = () => {
    if (worker === started) worker = null;
    for (const resolve of waiting.values()) resolve(false);
    waiting.clear();
  };
  started.on('error', fail);
  started.on('exit', fail);
  worker = started;
  return started;
}

function prove(pattern: string): Promise<boolean> {
  if (pattern.length > MAX_PATTERN_LENGTH) return Promise.resolve(false);
  const running = proofWorker();
  const id = nextId++;
  return new Promise<boolean>((resolve) => {
    const deadline = setTimeout(() => {
      // A proof that outlives its own timeout: the worker is replaced, the pattern refused.
      waiting.delete(id);
      resolve(false);
      void running.terminate();
    }, WORKER_DEADLINE_MS);
    deadline.unref();
    waiting.set(id, (safe) => {
      clearTimeout(deadline);
      resolve(safe);
    });
    running.ref();
    running.postMessage({ id, pattern });
  });
}

/** Every string in a `pattern` keyword and every key of a `patternProperties` object of a schema. */
function patternsOf(schema: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) for (const item of schema) patternsOf(item, found);
  else if (schema && typeof schema === 'object') {
    for (const [key, value] of Object.entries(schema)) {
      if (key === 'pattern' && typeof value === 'string') found.add(value);
      if (key === 'patternProperties' && value && typeof value === 'object' && !Array.isArray(value))
        for (const name of Object.keys(value as object)) found.add(name);
      patternsOf(value, found);
    }
  }
  return found;
}

/**
 * Proves the patterns of a schema linear before it is compiled (off the event loop). Afterwards
 * `linearRegExp` hands the proven ones to Ajv and refuses the others.
 */
export async function provePatterns(schema: unknown): Promise<void> {
  const unknown = [...patternsOf(schema)].filter((pattern) => !verdicts.has(pattern));
  const results = await Promise.all(unknown.map(prove));
  unknown.forEach((pattern, index) => {
    if (verdicts.size >= VERDICT_CACHE_LIMIT) verdicts.delete(verdicts.keys().next().value as string);
    verdicts.set(pattern, results[index]);
  });
}

/** Ajv's `code.regExp`: a native RegExp for a pattern proven linear; any other pattern is BAD_USER_INPUT. */
export const linearRegExp: RegExpEngine = Object.assign(
  (pattern: string, flags: string) => {
    if (verdicts.get(pattern) !== true) {
      throw appError(
        ErrorCode.BAD_USER_INPUT,
        `schema: the pattern ${JSON.stringify(pattern.slice(0, 100))} is not provably linear-time (nested or overlapping repetition can backtrack without bound); use a simpler pattern`,
        { field: 'schema' },
      );
    }
    return new RegExp(pattern, flags);
  },
  { code: 'new RegExp' },
);
