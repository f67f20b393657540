/**
 * Regular expressions of data-provider schemas (`pattern`, `patternProperties`) run only when they are
 * proven to run in linear time: `^(\w+\s?)*$` and one 29-character event held the event loop 15 s.
 * RE2 does not install here (the `re2` package downloads or builds a native binary; `re2-wasm` has a
 * fixed 16 MB heap that aborts the process and never frees a pattern), so each pattern is checked by
 * redos-detector, which answers safe only when it can prove no input backtracks without bound, and
 * the rest are refused. The proof runs in a worker thread, off the event loop.
 *
 * A verdict is the pattern's alone: the proof is bounded by a number of steps, never by a clock, so a
 * pattern proven on a quiet machine is proven on a loaded one and the other way round (a time limit once
 * refused `^[0-9]+$` while the machine was busy, and kept the refusal). A deadline remains only against
 * a worker that does not answer at all; what it cuts short is not a verdict: SERVICE_UNAVAILABLE, kept
 * nowhere, so the next try proves it.
 */
import type { RegExpEngine } from 'ajv/dist/types';
import { Worker } from 'node:worker_threads';
import { appError, ErrorCode } from '../../shared/errors';

/** Longest a pattern may be; longer ones are refused without a proof. */
const MAX_PATTERN_LENGTH = 1000;
/**
 * The proof's budget in redos-detector's steps (its default is 20,000): every pattern of ordinary schemas
 * (dates, ids, e-mail shapes, slugs) is proven in far fewer; a hostile one runs out of them, refused, in
 * a fraction of a second of the worker's CPU.
 */
const PROOF_MAX_STEPS = 1000;
/** How long a check waits for a worker that does not answer before it replaces it (not a verdict). */
const WORKER_DEADLINE_MS = 30_000;
const VERDICT_CACHE_LIMIT = 10_000;

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { isSafePattern } = require(workerData.detector);
parentPort.on('message', ({ id, pattern }) => {
  let safe = false;
  try {
    safe = isSafePattern(pattern, { unicode: true, maxSteps: workerData.maxSteps }).safe;
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
/** Proofs under way: each is answered with its verdict, or null when the worker failed to answer (no verdict). */
const waiting = new Map<number, (safe: boolean | null) => void>();

function proofWorker(): Worker {
  if (worker) return worker;
  const started = new Worker(WORKER_SOURCE, { eval: true, workerData: { detector: require.resolve('redos-detector'), maxSteps: PROOF_MAX_STEPS } });
  started.on('message', ({ id, safe }: { id: number; safe: boolean }) => {
    waiting.get(id)?.(safe);
    waiting.delete(id);
    // Idle, the worker must not keep the process alive; while a proof runs, it does.
    if (waiting.size === 0) started.unref();
  });
  const fail = () => {
    if (worker === started) worker = null;
    for (const resolve of waiting.values()) resolve(null);
    waiting.clear();
  };
  started.on('error', fail);
  started.on('exit', fail);
  worker = started;
  return started;
}

function prove(pattern: string): Promise<boolean | null> {
  if (pattern.length > MAX_PATTERN_LENGTH) return Promise.resolve(false);
  const running = proofWorker();
  const id = nextId++;
  return new Promise<boolean | null>((resolve) => {
    const deadline = setTimeout(() => {
      // A worker that does not answer is replaced; the pattern gets no verdict.
      waiting.delete(id);
      resolve(null);
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
    const safe = results[index];
    if (safe === null) return;
    if (verdicts.size >= VERDICT_CACHE_LIMIT) verdicts.delete(verdicts.keys().next().value as string);
    verdicts.set(pattern, safe);
  });
  if (results.includes(null)) {
    throw appError(ErrorCode.SERVICE_UNAVAILABLE, 'schema: its patterns could not be checked just now; try again shortly', { field: 'schema' });
  }
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
