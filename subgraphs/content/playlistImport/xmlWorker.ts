/**
 * XML parsing off the event loop: a 5 MiB feed takes fast-xml-parser one to two seconds, which no request may
 * hold the event loop for. One worker thread checks that a document is well-formed and parses it; the caller
 * gets the tree (as structured clone copies it) and reads it. Idle, the worker does not keep the process alive;
 * one that fails or does not answer within the deadline is replaced, and what it was parsing is SERVICE_UNAVAILABLE
 * (a try later may succeed), never a verdict on the document. Built as eventSchemaPatterns.ts builds its worker.
 */
import { Worker } from 'node:worker_threads';
import { appError, ErrorCode } from '../../../shared/errors';

/** Longest a parse may take before its worker is replaced: far above any 5 MiB document's, even on a loaded machine. */
const WORKER_DEADLINE_MS = 30_000;

/** What the worker answers: the tree, or that the document is not well-formed XML. */
export type ParsedXml = { wellFormed: true; document: Record<string, unknown> } | { wellFormed: false };

/** fast-xml-parser's options, but `isArray`, which cannot cross to the worker: the names of elements always kept as arrays. */
export interface XmlParseOptions {
  options: Record<string, unknown>;
  repeated: readonly string[];
}

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { XMLParser, XMLValidator } = require(workerData.parser);
const repeated = new Set(workerData.repeated);
const parser = new XMLParser({ ...workerData.options, isArray: (name) => repeated.has(name) });
parentPort.on('message', ({ id, text }) => {
  let answer = { wellFormed: false };
  try {
    if (XMLValidator.validate(text) === true) answer = { wellFormed: true, document: parser.parse(text) };
  } catch {
    answer = { wellFormed: false };
  }
  parentPort.postMessage({ id, answer });
});
`;

/** The worker for one set of options (the import has one). */
let worker: { key: string; thread: Worker } | null = null;
let nextId = 0;
/** Parses under way: each gets its answer, or null when the worker failed. */
const waiting = new Map<number, (answer: ParsedXml | null) => void>();

function parserWorker(setup: XmlParseOptions): Worker {
  const key = JSON.stringify(setup);
  if (worker?.key === key) return worker.thread;
  if (worker) void worker.thread.terminate();
  const thread = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { parser: require.resolve('fast-xml-parser'), options: setup.options, repeated: [...setup.repeated] },
  });
  thread.on('message', ({ id, answer }: { id: number; answer: ParsedXml }) => {
    waiting.get(id)?.(answer);
    waiting.delete(id);
    // Idle, the worker must not keep the process alive; while a parse runs, it does.
    if (waiting.size === 0) thread.unref();
  });
  const fail = () => {
    if (worker?.thread === thread) worker = null;
    for (const resolve of waiting.values()) resolve(null);
    waiting.clear();
  };
  thread.on('error', fail);
  thread.on('exit', fail);
  worker = { key, thread };
  return thread;
}

/** The document's tree, parsed in the worker; SERVICE_UNAVAILABLE when the worker failed to answer. */
export async function parseXmlOffThread(text: string, setup: XmlParseOptions): Promise<ParsedXml> {
  const thread = parserWorker(setup);
  const id = nextId++;
  const answer = await new Promise<ParsedXml | null>((resolve) => {
    const deadline = setTimeout(() => {
      waiting.delete(id);
      resolve(null);
      void thread.terminate();
    }, WORKER_DEADLINE_MS);
    deadline.unref();
    waiting.set(id, (parsed) => {
      clearTimeout(deadline);
      resolve(parsed);
    });
    thread.ref();
    thread.postMessage({ id, text });
  });
  if (!answer) throw appError(ErrorCode.SERVICE_UNAVAILABLE, 'the playlist document could not be read just now; try again shortly');
  return answer;
}
