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

export interface QueryCompilerModule {
  QueryCompiler?: { prototype: { compile?: (this: object, request: string) => unknown } };
}

const patched = new WeakSet<object>();

/** The action of a serialized Prisma statement (`{"modelName":…,"action":"findMany",…}`), read without parsing it. */
function actionOf(request: string): string | null {
  const at = request.indexOf('"action":"');
  if (at < 0) return null;
  const start = at + 10;
  const end = request.indexOf('"', start);
  return end < 0 ? null : request.slice(start, end);
}

/**
 * Makes every client built from `compilerModule` (a generated client's `query_compiler_bg.js`) reuse
 * the plans of its reads. Plans are shared by concurrent statements: the query interpreter only reads
 * them. Safe to call more than once; a module of another shape is left as it is.
 */
export function cacheReadPlans(compilerModule: QueryCompilerModule): void {
  const prototype = compilerModule.QueryCompiler?.prototype;
  const compile = prototype?.compile;
  if (!prototype || typeof compile !== 'function' || patched.has(prototype)) return;
  patched.add(prototype);
  const plansOf = new WeakMap<object, Map<string, unknown>>();
  prototype.compile = function compileOnce(this: object, request: string): unknown {
    if (typeof request !== 'string' || request.length > CACHEABLE_LENGTH) return compile.call(this, request);
    let plans = plansOf.get(this);
    const kept = plans?.get(request);
    if (kept !== undefined) return kept;
    const plan = compile.call(this, request);
    const action = actionOf(request);
    if (action === null || !READ_ACTIONS.has(action)) return plan;
    if (!plans) plansOf.set(this, (plans = new Map<string, unknown>()));
    if (plans.size >= KEPT_PLANS) plans.delete(plans.keys().next().value as string);
    plans.set(request, plan);
    return plan;
  };
}
