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
  /** Relay's backward arguments: the `last` items, before `before` (or at the end of the list). */
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

/** @throws BadUserInputError for a cursor that is not one of ours of this kind (`field`: the argument it came in). */
export function decodeCursor(cursor: string, kind: string, field: 'after' | 'before' = 'after'): string {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!text.startsWith(`${kind}:`) || text.length > 300) {
    const returned = field === 'after' ? 'an endCursor' : 'a startCursor';
    throw new BadUserInputError(`${field} ${JSON.stringify(cursor.slice(0, 40))} is not a cursor of this list; pass ${returned} it returned.`, { field });
  }
  return text.slice(kind.length + 1);
}

export function decodeIntCursor(cursor: string, kind: string, field: 'after' | 'before' = 'after'): number {
  const key = decodeCursor(cursor, kind, field);
  if (!/^\d{1,15}$/.test(key)) throw new BadUserInputError(`${field} is not a cursor of this list.`, { field });
  return Number(key);
}

/** Whether a page is asked for backward (Relay's `last`/`before`): the last items, before a cursor or at the end. */
export function isBackward(args: PageArgs): boolean {
  return args.last != null || args.before != null;
}

/**
 * How many items a page holds: `first` forward, `last` backward, 50 when neither is given.
 * @throws BadUserInputError for a negative or too large size, or forward and backward arguments mixed.
 */
export function pageSize(args: PageArgs): number {
  const forward = args.first != null || args.after != null;
  if (forward && isBackward(args)) {
    const field = args.last != null ? 'last' : 'before';
    throw new BadUserInputError('Page one way at a time: first with after (oldest first), or last with before (from the end).', { field });
  }
  const field = isBackward(args) ? 'last' : 'first';
  const size = isBackward(args) ? args.last : args.first;
  if (size == null) return DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(size) || size < 0 || size > MAX_PAGE_SIZE) {
    throw new BadUserInputError(`${field} must be from 0 to ${MAX_PAGE_SIZE}, got ${size}.`, { field });
  }
  return size;
}

/**
 * A backward page from `size + 1` items fetched from the end towards the start (the extra one
 * only tells whether there is a previous page): in list order again, `hasNextPage` when it
 * ended before a cursor.
 */
export function toBackwardPage<T>(
  fetchedFromEnd: T[],
  size: number,
  before: boolean,
  cursorOf: (item: T, index: number) => string,
  totalCount: () => Promise<number>,
): Page<T> {
  const items = fetchedFromEnd.slice(0, size).reverse();
  const edges = items.map((node, index) => ({ cursor: cursorOf(node, index), node }));
  return {
    edges,
    pageInfo: {
      hasNextPage: before,
      hasPreviousPage: fetchedFromEnd.length > size,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges[edges.length - 1]?.cursor ?? null,
    },
    totalCount,
  };
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

/** The rows past a newest-first cursor, for a where clause: older ones (`lt`, forward) or newer ones (`gt`, backward), the key breaking ties. */
export type NewestFirstAfter<Key extends string> = {
  OR: [{ createdAt: { lt: Date } | { gt: Date } }, { createdAt: Date } & { [K in Key]: { lt: string } | { gt: string } }];
};

/** A newest-first list's order (oldest first when read backward), the key breaking ties between rows created in the same millisecond. */
export type NewestFirstOrder<Key extends string> = [{ createdAt: 'desc' | 'asc' }, { [K in Key]: 'desc' | 'asc' }];

/**
 * One page of `size` rows of a list ordered newest first by (createdAt,
 * `key`), the one newest-first pagination (sessions, projects). Its cursor
 * holds both values, so a page stays put while newer rows arrive and even if
 * the row it names is deleted. `fetch` reads `take` rows in `orderBy`, only
 * those past the cursor when `after` is not null; `count` counts the whole
 * list, only when the client asks. Backward (`backward`, from `before` or the
 * end), the rows are read oldest first and the page put back in list order.
 * @throws BadUserInputError for a cursor that is not one of this list's (`kind`).
 */
export async function newestFirstPage<Key extends string, Row extends { createdAt: Date } & { [K in Key]: string }>(
  page: { size: number; after: string | null | undefined; before?: string | null; backward?: boolean; kind: string; key: Key },
  fetch: (query: { after: NewestFirstAfter<Key> | null; orderBy: NewestFirstOrder<Key>; take: number }) => Promise<Row[]>,
  count: () => Promise<number>,
): Promise<Page<Row>> {
  const { size, kind, key } = page;
  const backward = page.backward === true;
  const cursor = backward ? page.before : page.after;
  let after: NewestFirstAfter<Key> | null = null;
  if (cursor) {
    const field = backward ? 'before' : 'after';
    const text = decodeCursor(cursor, kind, field);
    const bar = text.indexOf('|');
    const createdAt = new Date(Number(text.slice(0, bar)));
    if (bar < 1 || Number.isNaN(createdAt.getTime())) throw new BadUserInputError(`${field} is not a cursor of this list.`, { field });
    const id = text.slice(bar + 1);
    after = backward
      ? { OR: [{ createdAt: { gt: createdAt } }, { createdAt, ...keyed(key, { gt: id }) }] }
      : { OR: [{ createdAt: { lt: createdAt } }, { createdAt, ...keyed(key, { lt: id }) }] };
  }
  const direction = backward ? 'asc' : 'desc';
  const fetched = await fetch({ after, orderBy: [{ createdAt: direction }, keyed(key, direction)], take: size + 1 });
  const cursorOf = (row: Row) => encodeCursor(kind, `${row.createdAt.getTime()}|${row[key]}`);
  return backward ? toBackwardPage(fetched, size, Boolean(cursor), cursorOf, count) : toPage(fetched, size, Boolean(cursor), cursorOf, count);
}

// TypeScript types a computed key `{ [key]: value }` as a string index, not as the one key it is.
function keyed<Key extends string, V>(key: Key, value: V): { [K in Key]: V } {
  return Object.fromEntries([[key, value]]) as { [K in Key]: V };
}

/** What an `ascendingPage` fetch reads: `take` items with a key above `after` in key order, or (`fromEnd`) below `before` from the highest key down. */
export type AscendingRange = { fromEnd: false; after: number | null; take: number } | { fromEnd: true; before: number | null; take: number };

/** A Prisma where, order and take for the messages `range` asks for, among those `where` selects (by seq). */
export function seqRange<Where extends object>(
  where: Where,
  range: AscendingRange,
): { where: Where | { AND: (Where | { seq: { lt: number } | { gt: number } })[] }; orderBy: { seq: 'asc' | 'desc' }; take: number } {
  const bound = range.fromEnd ? (range.before === null ? null : { seq: { lt: range.before } }) : range.after === null ? null : { seq: { gt: range.after } };
  return { where: bound === null ? where : { AND: [where, bound] }, orderBy: { seq: range.fromEnd ? 'desc' : 'asc' }, take: range.take };
}

/**
 * One page of `size` items of a list ordered by an increasing whole number
 * (a seq, a turn number), the cursor holding that number. `fetch` reads the
 * range asked (see AscendingRange); `count` counts the whole list, only when
 * the client asks.
 * @throws BadUserInputError for a cursor that is not one of this list's (`kind`), before `fetch` runs.
 */
export async function ascendingPage<Item>(
  page: { size: number; after: string | null | undefined; before?: string | null; backward?: boolean; kind: string; keyOf: (item: Item) => number },
  fetch: (range: AscendingRange) => Promise<Item[]>,
  count: () => Promise<number>,
): Promise<Page<Item>> {
  const cursorOf = (item: Item) => encodeCursor(page.kind, page.keyOf(item));
  if (page.backward) {
    const before = page.before ? decodeIntCursor(page.before, page.kind, 'before') : null;
    const fetched = await fetch({ fromEnd: true, before, take: page.size + 1 });
    return toBackwardPage(fetched, page.size, before !== null, cursorOf, count);
  }
  const after = page.after ? decodeIntCursor(page.after, page.kind) : null;
  const fetched = await fetch({ fromEnd: false, after, take: page.size + 1 });
  return toPage(fetched, page.size, after !== null, cursorOf, count);
}

/**
 * One page of `size` items of a list read by position, the cursor holding the
 * number of items up to and including its own: the git-backed commit lists
 * (`git log --skip`), which have no key git could start a walk from. `fetch`
 * reads `take` items after the first `skip`; `count` counts the whole list,
 * only when the client asks, given the items known to exist (`seen`: those
 * skipped and those fetched) for when it cannot read more. A first page with
 * nothing on it is the empty list, counted 0 without asking. Backward, the
 * position comes from `before`, or from the count for the end of the list.
 * @throws BadUserInputError for a cursor that is not one of this list's (`kind`), before `fetch` runs.
 */
export async function offsetPage<Item>(
  page: { size: number; after: string | null | undefined; before?: string | null; backward?: boolean; kind: string },
  fetch: (skip: number, take: number) => Promise<Item[]>,
  count: (seen: number) => Promise<number>,
): Promise<Page<Item>> {
  if (page.backward) {
    // Items 1 … end-1 come before the cursor's (or all of them, at the end of the list).
    const end = page.before ? decodeIntCursor(page.before, page.kind, 'before') : (await count(0)) + 1;
    const skip = Math.max(0, end - 1 - page.size);
    const fetched = end > 1 ? await fetch(skip, end - 1 - skip) : [];
    const edges = fetched.map((node, index) => ({ cursor: encodeCursor(page.kind, skip + index + 1), node }));
    return {
      edges,
      pageInfo: { hasNextPage: Boolean(page.before), hasPreviousPage: skip > 0, startCursor: edges[0]?.cursor ?? null, endCursor: edges.at(-1)?.cursor ?? null },
      totalCount: () => count(skip + fetched.length),
    };
  }
  const skip = page.after ? decodeIntCursor(page.after, page.kind) : 0;
  const fetched = await fetch(skip, page.size + 1);
  if (fetched.length === 0 && skip === 0) return emptyPage();
  return toPage(fetched, page.size, skip > 0, (_item, index) => encodeCursor(page.kind, skip + index + 1), () => count(skip + fetched.length));
}
