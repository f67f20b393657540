/**
 * Legacy Mongo-style projections on REST answers (`?projection={"title":1}`, `options.projection`):
 * GraphQL already selects fields, but legacy clients ask the REST paths for fewer. `{ f: 1 }` keeps only
 * the named fields (and `_id` unless `_id: 0`), `{ f: 0 }` drops them; dotted paths reach into objects
 * and through arrays, as in MongoDB.
 */

export interface Projection {
  include: boolean;
  paths: string[][];
  keepId: boolean;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => Boolean(value) && typeof value === 'object' && !Array.isArray(value);

/**
 * The projection a request gives, checked: an object of 0 / 1 / true / false. Returns null when it names
 * no field (absent, empty, or only `ignore`d keys); an error message when it is malformed.
 */
export function readProjection(raw: unknown, where: string, ignore: readonly string[] = []): Projection | null | { error: string } {
  if (raw === undefined || raw === null) return null;
  if (!isObject(raw)) return { error: `${where} must be an object such as {"title": 1}` };
  const entries = Object.entries(raw).filter(([key]) => !ignore.includes(key));
  for (const [key, value] of entries) {
    if (![0, 1, true, false].includes(value as number | boolean)) return { error: `${where}.${key} must be 0 or 1` };
  }
  const fields = entries.filter(([key]) => key !== '_id');
  const id = entries.find(([key]) => key === '_id');
  if (fields.length === 0) return id && !id[1] ? { include: false, paths: [['_id']], keepId: false } : null;
  const include = Boolean(fields[0][1]);
  if (fields.some(([, value]) => Boolean(value) !== include)) return { error: `${where} cannot mix fields kept (1) and dropped (0)` };
  const paths = fields.map(([key]) => key.split('.'));
  const keepId = !id || Boolean(id[1]);
  return include ? { include, paths, keepId } : { include, paths: keepId ? paths : [...paths, ['_id']], keepId };
}

function pick(value: unknown, path: string[]): unknown {
  if (path.length === 0) return value;
  if (Array.isArray(value)) return value.map((item) => pick(item, path) ?? {});
  if (!isObject(value) || !Object.hasOwn(value, path[0])) return undefined;
  const inner = pick(value[path[0]], path.slice(1));
  return inner === undefined ? undefined : { [path[0]]: inner };
}

function merge(target: unknown, source: unknown): unknown {
  if (Array.isArray(target) && Array.isArray(source)) return source.map((item, index) => merge(target[index], item));
  if (isObject(target) && isObject(source)) {
    const merged: Json = { ...target };
    for (const [key, value] of Object.entries(source)) merged[key] = key in merged ? merge(merged[key], value) : value;
    return merged;
  }
  return source;
}

function omit(value: unknown, path: string[]): unknown {
  if (Array.isArray(value)) return value.map((item) => omit(item, path));
  if (!isObject(value) || !Object.hasOwn(value, path[0])) return value;
  const copy: Json = { ...value };
  if (path.length === 1) delete copy[path[0]];
  else copy[path[0]] = omit(copy[path[0]], path.slice(1));
  return copy;
}

/** One item with the projection applied. */
export function project(item: unknown, projection: Projection): unknown {
  if (!isObject(item)) return item;
  if (!projection.include) return projection.paths.reduce<unknown>((current, path) => omit(current, path), item);
  let result: unknown = projection.keepId && Object.hasOwn(item, '_id') ? { _id: item._id } : {};
  for (const path of projection.paths) {
    const picked = pick(item, path);
    if (picked !== undefined) result = merge(result, picked);
  }
  return result;
}
