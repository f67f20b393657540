/**
 * What a client's JSON may hold, checked once at the edge (the REST bridge's body and parameters, the
 * /graphql body) so no value reaches a resolver or the database that could not be stored and read back:
 * strings must be well-formed UTF-16 (no lone surrogate) without NUL (PostgreSQL text cannot hold it),
 * numbers must be finite and within the safe integer range, and nesting is at most MAX_JSON_DEPTH deep
 * (deeper values overflow recursive code further in). JSON.parse itself is iterative in V8, so the
 * parse is safe; the walk below is iterative too.
 */

/** The deepest nesting of objects and arrays a client may send (docs/design.md "Reliability and security"). */
export const MAX_JSON_DEPTH = 64;

/** ES2024's String.prototype.isWellFormed (Node 20 has it; the ES2023 lib typings do not). */
interface WellFormed {
  isWellFormed(): boolean;
}

/** What is wrong with a string, or null when it may be stored as it is. */
export function stringProblem(value: string): string | null {
  if (!(value as unknown as WellFormed).isWellFormed()) return 'must not contain a lone surrogate (malformed UTF-16)';
  if (value.includes('\u0000')) return 'must not contain a NUL character';
  return null;
}

/** What is wrong with a number, or null when it may be stored as it is. */
export function numberProblem(value: number): string | null {
  if (!Number.isFinite(value)) return 'must be a finite number';
  if (Math.abs(value) > Number.MAX_SAFE_INTEGER) return `must be between -${Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}`;
  return null;
}

const fieldName = (parent: string, key: string | number) => (typeof key === 'number' ? `${parent}[${key}]` : parent ? `${parent}.${key}` : key);

/**
 * The first problem in a parsed JSON value, as a sentence naming the field (`body.answers[0].text
 * must not contain …`), or null when every string, number and nesting level is acceptable.
 */
export function jsonValueProblem(value: unknown, root: string): string | null {
  const stack: { value: unknown; name: string; depth: number }[] = [{ value, name: root, depth: 0 }];
  while (stack.length > 0) {
    const { value: current, name, depth } = stack.pop()!;
    if (typeof current === 'string') {
      const problem = stringProblem(current);
      if (problem) return `${name || 'the value'} ${problem}`;
    } else if (typeof current === 'number') {
      const problem = numberProblem(current);
      if (problem) return `${name || 'the value'} ${problem}`;
    } else if (current !== null && typeof current === 'object') {
      if (depth >= MAX_JSON_DEPTH) return `${name || 'the value'} is nested too deeply (at most ${MAX_JSON_DEPTH} levels)`;
      if (Array.isArray(current)) {
        for (let index = current.length - 1; index >= 0; index--) stack.push({ value: current[index], name: fieldName(name, index), depth: depth + 1 });
      } else {
        const entries = Object.entries(current as Record<string, unknown>);
        for (let index = entries.length - 1; index >= 0; index--) {
          const [key, item] = entries[index];
          const keyProblem = stringProblem(key);
          if (keyProblem) return `a property name in ${name || 'the value'} ${keyProblem}`;
          stack.push({ value: item, name: fieldName(name, key), depth: depth + 1 });
        }
      }
    }
  }
  return null;
}

/** JSON text parsed and checked: the value, or a sentence saying what is wrong (naming `root`). */
export function parseJsonInput(text: string, root: string): { value: unknown } | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { error: root === 'body' ? 'the body is not valid JSON' : `${root} must be JSON` };
  }
  const problem = jsonValueProblem(value, root);
  return problem ? { error: problem } : { value };
}
