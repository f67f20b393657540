/**
 * Paging, sorting and property filters of the content lists, in one place: the legacy lists take
 * limit / offset / sortBy / sortDirection (1 or -1) and a `property` filter written `name=value`.
 */
import { containsText } from '../../shared/db/literalSearch';
import { badInput } from '../../shared/errors';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 500;

export interface Paging {
  take: number;
  skip: number;
}

export function paging(limit: number | null | undefined, offset: number | null | undefined, defaultLimit = DEFAULT_LIMIT): Paging {
  const take = limit ?? defaultLimit;
  const skip = offset ?? 0;
  if (!Number.isInteger(take) || take < 1 || take > MAX_LIMIT) throw badInput(`limit must be a whole number from 1 to ${MAX_LIMIT}`, 'limit');
  if (!Number.isInteger(skip) || skip < 0) throw badInput('offset must be a whole number of at least 0', 'offset');
  return { take, skip };
}

export type Direction = 'asc' | 'desc';

/** 1 = ascending, -1 = descending. */
export function direction(sortDirection: number | null | undefined, fallback: 1 | -1): { value: 1 | -1; order: Direction } {
  const value = sortDirection ?? fallback;
  if (value !== 1 && value !== -1) throw badInput('sortDirection must be 1 (ascending) or -1 (descending)', 'sortDirection');
  return { value, order: value === 1 ? 'asc' : 'desc' };
}

/** The column a legacy sortBy names, from the list's own map of names to columns. */
export function sortColumn<C extends string>(sortBy: string | null | undefined, columns: Record<string, C>, fallback: string): { name: string; column: C } {
  const name = sortBy ?? fallback;
  const column = columns[name];
  if (!column) throw badInput(`sortBy must be one of ${Object.keys(columns).join(', ')}`, 'sortBy');
  return { name, column };
}

export type PropertyKind = 'text' | 'number' | 'boolean';

/**
 * A `name=value` filter on one of the list's filterable fields, as a Prisma where clause. Values are
 * taken as the field's kind (numbers and true/false are parsed).
 */
export function propertyFilter(
  property: string | null | undefined,
  fields: Record<string, { column: string; kind: PropertyKind }>,
): { where: Record<string, unknown>; searchFields: string[] } {
  if (property === undefined || property === null || property === '') return { where: {}, searchFields: [] };
  const equals = property.indexOf('=');
  const name = equals > 0 ? property.slice(0, equals).trim() : '';
  const raw = equals > 0 ? property.slice(equals + 1) : '';
  const field = fields[name];
  if (!field) throw badInput(`property must be written name=value with name one of ${Object.keys(fields).join(', ')}`, 'property');
  let value: unknown = raw;
  if (field.kind === 'number') {
    value = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(value)) throw badInput(`property ${name} must be a number`, 'property');
  } else if (field.kind === 'boolean') {
    if (raw !== 'true' && raw !== 'false') throw badInput(`property ${name} must be true or false`, 'property');
    value = raw === 'true';
  }
  return { where: { [field.column]: value }, searchFields: [name] };
}

/** The pagination object of a legacy list. */
export function pagination(page: Paging, totalCount: number, pageResults: number, sortBy: string, sortDirection: 1 | -1, searchFields: string[]) {
  return {
    limit: page.take,
    offset: page.skip,
    totalCount,
    pageResults,
    sortBy,
    sortDirection,
    sortDirectionText: String(sortDirection),
    searchFields,
  };
}

/** Lower-case text for case-insensitive search that behaves the same on SQLite and PostgreSQL. */
export const searchKey = (...parts: (string | null | undefined)[]) => parts.filter(Boolean).join('\n').toLowerCase();

/** A search term as a filter on a lower-cased column (the term literal: `%` and `_` match themselves), or nothing when there is no term. */
export function searchFilter(column: string, search: string | null | undefined): Record<string, unknown> {
  const term = search?.trim().toLowerCase();
  if (!term) return {};
  if (term.length > 200) throw badInput('search must be at most 200 characters', 'search');
  return { [column]: containsText(term) };
}

export interface ListArgs {
  limit?: number | null;
  offset?: number | null;
  sortBy?: string | null;
  sortDirection?: number | null;
  property?: string | null;
}

export interface ListSpec<C extends string> {
  /** sortBy names and the columns they sort. */
  sort: Record<string, C>;
  defaultSort: string;
  defaultDirection: 1 | -1;
  /** Fields the property filter may name. */
  properties?: Record<string, { column: string; kind: PropertyKind }>;
}

/** A legacy list request as Prisma arguments (ties broken by id), and the pagination object of its answer. */
export function listQuery<C extends string>(args: ListArgs, spec: ListSpec<C>) {
  const page = paging(args.limit, args.offset);
  const sort = sortColumn(args.sortBy, spec.sort, spec.defaultSort);
  const sortOrder = direction(args.sortDirection, spec.defaultDirection);
  const filter = propertyFilter(args.property, spec.properties ?? {});
  return {
    where: filter.where,
    orderBy: [{ [sort.column]: sortOrder.order }, { id: sortOrder.order }],
    page,
    paginate: (results: readonly unknown[], totalCount: number) =>
      pagination(page, totalCount, results.length, sort.name, sortOrder.value, filter.searchFields),
  };
}
