/**
 * Relay pagination by key: a cursor is an opaque, typed wrapper around the
 * ordering key of an item (a seq, a turn number, a sha), so pages stay stable
 * while new items arrive.
 */
import { BadUserInputError } from '../errors.js';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 500;

export interface PageArgs {
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

/** The cursor of an item in a newest-first list ordered by (createdAt desc, id desc). */
export function encodeNewestFirst(kind: string, createdAt: Date, id: string): string {
  return encodeCursor(kind, `${createdAt.getTime()}|${id}`);
}

/** @throws BadUserInputError for a cursor that is not one of `encodeNewestFirst(kind, …)`. */
export function decodeNewestFirst(cursor: string, kind: string): { createdAt: Date; id: string } {
  const key = decodeCursor(cursor, kind);
  const bar = key.indexOf('|');
  const createdAt = new Date(Number(key.slice(0, bar)));
  if (bar < 1 || Number.isNaN(createdAt.getTime())) throw new BadUserInputError('after is not a cursor of this list.', { field: 'after' });
  return { createdAt, id: key.slice(bar + 1) };
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
  cursorOf: (item: T) => string,
  totalCount: () => Promise<number>,
): Page<T> {
  const items = fetched.slice(0, size);
  const edges = items.map((node) => ({ cursor: cursorOf(node), node }));
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
