/**
 * Relay pagination by key: a cursor is an opaque, typed wrapper around the
 * ordering key of an item (a seq, a turn number, a sha), so pages stay stable
 * while new items arrive.
 */
import { BadUserInputError } from '../errors.js';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 500;

export interface PageArgs {
  /** Only totalCount is wanted: read no rows (first, after and the branch are still checked). */
  countOnly?: boolean;
  first?: number | null;
  after?: string | null;
  /** Relay's backward arguments: accepted by the schema's shape, refused here. */
  last?: number | null;
  before?: string | null;
}

export interface Edge<T> {
  cursor: string;
  node: T;
}

export interface Page<T> {
  edges: Edge<T>[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  /** Computed only when the client asks for it. */
  totalCount: () => Promise<number>;
}

export function encodeCursor(kind: string, key: string | number): string {
  return Buffer.from(`${kind}:${key}`, 'utf8').toString('base64url');
}

/** @throws BadUserInputError for a cursor that is not one of ours of this kind. */
export function decodeCursor(cursor: string, kind: string): string {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!text.startsWith(`${kind}:`) || text.length > 300) {
    throw new BadUserInputError(`after ${JSON.stringify(cursor.slice(0, 40))} is not a cursor of this list; pass an endCursor it returned.`, {
      field: 'after',
    });
  }
  return text.slice(kind.length + 1);
}

export function decodeIntCursor(cursor: string, kind: string): number {
  const key = decodeCursor(cursor, kind);
  if (!/^\d{1,15}$/.test(key)) throw new BadUserInputError('after is not a cursor of this list.', { field: 'after' });
  return Number(key);
}

/** @throws BadUserInputError for a negative or too large `first`, or backward paging. */
export function pageSize(args: PageArgs): number {
  if (args.last != null || args.before != null) {
    throw new BadUserInputError('Lists page forward only: use first and after.', { field: args.last != null ? 'last' : 'before' });
  }
  const first = args.first;
  if (first == null) return DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(first) || first < 0 || first > MAX_PAGE_SIZE) {
    throw new BadUserInputError(`first must be from 0 to ${MAX_PAGE_SIZE}, got ${first}.`, { field: 'first' });
  }
  return first;
}

/**
 * Builds a page from `size + 1` fetched items (the extra one only tells
 * whether there is a next page).
 */
export function toPage<T>(
  fetched: T[],
  size: number,
  hasPrevious: boolean,
  cursorOf: (item: T, index: number) => string,
  totalCount: () => Promise<number>,
): Page<T> {
  const items = fetched.slice(0, size);
  const edges = items.map((node, index) => ({ cursor: cursorOf(node, index), node }));
  return {
    edges,
    pageInfo: {
      hasNextPage: fetched.length > size,
      hasPreviousPage: hasPrevious,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges[edges.length - 1]?.cursor ?? null,
    },
    totalCount,
  };
}

/**
 * A page asked for its count only: no rows are read.
 * @throws BadUserInputError for an `after` that is not a cursor of this list (`kind`), as a page would.
 */
export function countOnlyPage<T>(totalCount: () => Promise<number>, after?: string | null, kind?: string): Page<T> {
  if (after && kind) decodeIntCursor(after, kind);
  return toPage<T>([], 0, false, () => '', totalCount);
}

/**
 * A list with nothing in it: no edges, a count of 0.
 * @throws BadUserInputError for an `after` that is not a cursor of this list (`kind`), as a page would.
 */
export function emptyPage<T>(after?: string | null, kind?: string): Page<T> {
  return countOnlyPage<T>(async () => 0, after, kind);
}

/** The rows after a newest-first cursor, for a where clause: older, or as old with a smaller key. */
export type NewestFirstAfter<Key extends string> = {
  OR: [{ createdAt: { lt: Date } }, { createdAt: Date } & { [K in Key]: { lt: string } }];
};

/** A newest-first list's order, the key breaking ties between rows created in the same millisecond. */
export type NewestFirstOrder<Key extends string> = [{ createdAt: 'desc' }, { [K in Key]: 'desc' }];

/**
 * One page of `size` rows of a list ordered newest first by (createdAt,
 * `key`), the one newest-first pagination (sessions, projects). Its cursor
 * holds both values, so a page stays put while newer rows arrive and even if
 * the row it names is deleted. `fetch` reads `take` rows in `orderBy`, the
 * rows after the cursor only when `after` is not null; `count` counts the
 * whole list, only when the client asks.
 * @throws BadUserInputError for a cursor that is not one of this list's (`kind`).
 */
export async function newestFirstPage<Key extends string, Row extends { createdAt: Date } & { [K in Key]: string }>(
  page: { size: number; after: string | null | undefined; kind: string; key: Key },
  fetch: (query: { after: NewestFirstAfter<Key> | null; orderBy: NewestFirstOrder<Key>; take: number }) => Promise<Row[]>,
  count: () => Promise<number>,
): Promise<Page<Row>> {
  const { size, kind, key } = page;
  let after: NewestFirstAfter<Key> | null = null;
  if (page.after) {
    const text = decodeCursor(page.after, kind);
    const bar = text.indexOf('|');
    const createdAt = new Date(Number(text.slice(0, bar)));
    if (bar < 1 || Number.isNaN(createdAt.getTime())) throw new BadUserInputError('after is not a cursor of this list.', { field: 'after' });
    const id = text.slice(bar + 1);
    after = { OR: [{ createdAt: { lt: createdAt } }, { createdAt, ...keyed(key, { lt: id }) }] };
  }
  const fetched = await fetch({ after, orderBy: [{ createdAt: 'desc' }, keyed(key, 'desc')], take: size + 1 });
  return toPage(fetched, size, Boolean(page.after), (row) => encodeCursor(kind, `${row.createdAt.getTime()}|${row[key]}`), count);
}

// TypeScript types a computed key `{ [key]: value }` as a string index, not as the one key it is.
function keyed<Key extends string, V>(key: Key, value: V): { [K in Key]: V } {
  return Object.fromEntries([[key, value]]) as { [K in Key]: V };
}

/**
 * One page of `size` items of a list ordered by an increasing whole number
 * (a seq, a turn number), the cursor holding that number. `fetch` reads
 * `take` items with a key above `after` (all when null); `count` counts the
 * whole list, only when the client asks.
 * @throws BadUserInputError for a cursor that is not one of this list's (`kind`), before `fetch` runs.
 */
export async function ascendingPage<Item>(
  page: { size: number; after: string | null | undefined; kind: string; keyOf: (item: Item) => number },
  fetch: (after: number | null, take: number) => Promise<Item[]>,
  count: () => Promise<number>,
): Promise<Page<Item>> {
  const after = page.after ? decodeIntCursor(page.after, page.kind) : null;
  const fetched = await fetch(after, page.size + 1);
  return toPage(fetched, page.size, after !== null, (item) => encodeCursor(page.kind, page.keyOf(item)), count);
}

/**
 * One page of `size` items of a list read by position, the cursor holding the
 * number of items up to and including its own: the git-backed commit lists
 * (`git log --skip`), which have no key git could start a walk from. `fetch`
 * reads `take` items after the first `skip`; `count` counts the whole list,
 * only when the client asks, given the items known to exist (`seen`: those
 * skipped and those fetched) for when it cannot read more. A first page with
 * nothing on it is the empty list, counted 0 without asking.
 * @throws BadUserInputError for a cursor that is not one of this list's (`kind`), before `fetch` runs.
 */
export async function offsetPage<Item>(
  page: { size: number; after: string | null | undefined; kind: string },
  fetch: (skip: number, take: number) => Promise<Item[]>,
  count: (seen: number) => Promise<number>,
): Promise<Page<Item>> {
  const skip = page.after ? decodeIntCursor(page.after, page.kind) : 0;
  const fetched = await fetch(skip, page.size + 1);
  if (fetched.length === 0 && skip === 0) return emptyPage();
  return toPage(fetched, page.size, skip > 0, (_item, index) => encodeCursor(page.kind, skip + index + 1), () => count(skip + fetched.length));
}
