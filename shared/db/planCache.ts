/**
 * Query plans of reads kept per Prisma client. Prisma 6's query compiler (WebAssembly) turns every
 * statement into a plan on every call, and that compile is the largest single cost of a simple read:
 * a quarter of the CPU of the one-subgraph overlays query under load. A plan depends only on the
 * statement (its model, arguments and selection, values included) and the schema, never on data, so a
 * read sent again with the same arguments — a site's overlays, its key, its settings — can reuse the
 * plan compiled the first time. Writes are always compiled: their plans may carry generated defaults.
 * Prisma 7 caches plans itself; this bridges 6.19 until then.
 */

/** The actions whose plans read only, and are a function of the statement text alone. */
const READ_ACTIONS = new Set(['findUnique', 'findUniqueOrThrow', 'findFirst', 'findFirstOrThrow', 'findMany', 'count', 'aggregate', 'groupBy']);
/** Plans kept per client; the oldest goes first. */
const KEPT_PLANS = 2000;
/** Longer statements (large `in` lists, say) are seldom sent twice: not kept. */
const CACHEABLE_LENGTH = 8 * 1024;

type Compile = (this: object, request: string) => unknown;

export interface QueryCompilerModule {
  QueryCompiler?: { prototype: { compile?: Compile; compileBatch?: Compile } };
}

const patched = new WeakSet<object>();

/** The actions of a serialized Prisma statement or batch (`{"modelName":…,"action":"findMany",…}`), read without parsing it. */
function actionsOf(request: string): string[] {
  const actions: string[] = [];
  for (let at = request.indexOf('"action":"'); at >= 0; at = request.indexOf('"action":"', at)) {
    const start = at + 10;
    const end = request.indexOf('"', start);
    if (end < 0) break;
    actions.push(request.slice(start, end));
    at = end;
  }
  return actions;
}

/** Whether the plan of `request` only reads: every action in it (one, or each of a batch's) is a read. */
function readsOnly(request: string): boolean {
  const actions = actionsOf(request);
  return actions.length > 0 && actions.every((action) => READ_ACTIONS.has(action));
}

/** `compile` with the plans of reads kept per compiler (the client that owns it). */
function keepingReadPlans(compile: Compile): Compile {
  const plansOf = new WeakMap<object, Map<string, unknown>>();
  return function compileOnce(this: object, request: string): unknown {
    if (typeof request !== 'string' || request.length > CACHEABLE_LENGTH) return compile.call(this, request);
    let plans = plansOf.get(this);
    const kept = plans?.get(request);
    if (kept !== undefined) return kept;
    const plan = compile.call(this, request);
    if (!readsOnly(request)) return plan;
    if (!plans) plansOf.set(this, (plans = new Map<string, unknown>()));
    if (plans.size >= KEPT_PLANS) plans.delete(plans.keys().next().value as string);
    plans.set(request, plan);
    return plan;
  };
}

/**
 * Makes every client built from `compilerModule` (a generated client's `query_compiler_bg.js`) reuse
 * the plans of its reads: single statements, and the batches Prisma makes of the `findUnique` calls of
 * one tick (each poll of a deep query's `pollResults`, say), whose plans are read the same way. Plans are
 * shared by concurrent statements: the query interpreter only reads them. Safe to call more than once; a
 * module of another shape is left as it is.
 */
export function cacheReadPlans(compilerModule: QueryCompilerModule): void {
  const prototype = compilerModule.QueryCompiler?.prototype;
  if (!prototype || typeof prototype.compile !== 'function' || patched.has(prototype)) return;
  patched.add(prototype);
  prototype.compile = keepingReadPlans(prototype.compile);
  if (typeof prototype.compileBatch === 'function') prototype.compileBatch = keepingReadPlans(prototype.compileBatch);
}
