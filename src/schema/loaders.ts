import type { Context } from '../context.js';
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
}

const byContext = new WeakMap<Context, RequestLoaders>();

export function loaders(ctx: Context): RequestLoaders {
  let found = byContext.get(ctx);
  if (!found) {
    const { db } = ctx.deps;
    const reads = new SessionReads(db);
    found = { reads, content: new MessageContentLoader(db), commitTurns: new CommitTurnLoader(db), headlines: new CommitHeadlineLoader(db), mirror: new MirrorStatusLoader(ctx.deps, reads), lastActivity: new LastActivityLoader(db) };
    byContext.set(ctx, found);
  }
  return found;
}
