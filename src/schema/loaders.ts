import type { Context } from '../context.js';
import type { Prisma, Session, Turn } from '../generated/prisma/client.js';
import { Batcher, chunks } from '../services/batcher.js';
import { NotFoundError } from '../errors.js';
import { CommitHeadlineLoader, CommitTurnLoader, MirrorStatusLoader } from '../services/replay/read-commits.js';
import { LastActivityLoader, MessageContentLoader } from '../services/sessions/read-session.js';
import { SessionReads } from '../services/sessions/session-reads.js';

/**
 * The batched reads of one request: the rows of a list resolved side by side
 * ask together, so a page costs a fixed number of statements. Per request,
 * because the content loader spends that request's text budget.
 */
export interface RequestLoaders {
  /** Branches, path ends and counts, pages of turns and commits. */
  reads: SessionReads;
  content: MessageContentLoader;
  commitTurns: CommitTurnLoader;
  /** Turn commits' headlines, from the database. */
  headlines: CommitHeadlineLoader;
  mirror: MirrorStatusLoader;
  lastActivity: LastActivityLoader;
  /** Session rows by id: the events of a burst, resolved side by side, read by one statement. */
  sessions: Batcher<string, Session>;
  /**
   * Turn rows by id, one batcher per selection (what Pothos plans for the field, queryFromInfo);
   * `key` tells selections apart: the query's JSON, which the caller has made already.
   */
  turns(key: string, query: TurnQuery): Batcher<string, Turn>;
}

/** What a turn field's selection asks Prisma for: `select` or `include` (queryFromInfo). */
export type TurnQuery = Omit<Prisma.TurnFindManyArgs, 'where'>;

/**
 * Rows by their ids through findMany, an IN list per 500: one statement plan whatever the count.
 * Prisma batches the findUnique calls of one tick itself, but as a batch of that many queries,
 * planned again for every new count (bench/fanout.ts: 20-60 ms of a burst's execution) and run
 * at 6-8 ms for 15 rows once planned, against 1 ms for the same rows by findMany.
 */
function byIds<Row>(read: (ids: string[]) => Promise<Row[]>, idOf: (row: Row) => string, missing: (id: string) => Error): Batcher<string, Row> {
  return new Batcher<string, Row>(async (ids) => {
    const found = new Map<string, Row>();
    for (const slice of chunks(ids, 500)) for (const row of await read(slice)) found.set(idOf(row), row);
    return ids.map((id) => found.get(id) ?? missing(id));
  });
}

const byContext = new WeakMap<Context, RequestLoaders>();

export function loaders(ctx: Context): RequestLoaders {
  let found = byContext.get(ctx);
  if (!found) {
    const { db } = ctx.deps;
    const reads = new SessionReads(db);
    const turns = new Map<string, Batcher<string, Turn>>();
    found = {
      reads,
      content: new MessageContentLoader(db),
      commitTurns: new CommitTurnLoader(db),
      headlines: new CommitHeadlineLoader(db),
      mirror: new MirrorStatusLoader(ctx.deps, reads),
      lastActivity: new LastActivityLoader(db),
      sessions: byIds((ids) => db.session.findMany({ where: { sessionId: { in: ids } } }), (row) => row.sessionId, (sessionId) => new NotFoundError(`Session ${JSON.stringify(sessionId)} does not exist.`, { sessionId })),
      turns(key, query) {
        let batcher = turns.get(key);
        if (!batcher) turns.set(key, (batcher = byIds((ids) => db.turn.findMany({ ...query, where: { id: { in: ids } } }) as Promise<Turn[]>, (row) => row.id, (id) => new NotFoundError(`Turn ${JSON.stringify(id)} does not exist.`, { id }))));
        return batcher;
      },
    };
    byContext.set(ctx, found);
  }
  return found;
}
