/**
 * Secrets out of what is already stored (`entity-memory redact --existing`): every message's
 * content and metadata, and every session's title and metadata, go through the same detectors a
 * new message does (src/redaction/), and the rows that change are written back with what was
 * taken out added to their counts. The session repos still hold the old text: the caller
 * rebuilds the sessions this returns. Run with the data dir's lock held (no server writing).
 */
import { mergeCounts, redactMessageFields } from '../../redaction/message.js';
import { redactJsonText, redactText, sumCounts, type RedactionCounts } from '../../redaction/secrets.js';
import type { Db } from '../../db/index.js';

/** Messages read and written per transaction: bounded memory with 16 MiB messages, few round trips. */
const BATCH = 100;

export interface RedactStoredReport {
  /** Messages read. */
  messages: number;
  /** Messages whose content or metadata changed. */
  changedMessages: number;
  /** Sessions whose title or metadata changed. */
  changedSessions: number;
  /** What was taken out, by kind, over everything changed. */
  counts: RedactionCounts;
  /** Sessions with anything changed, whose repos hold the old text until rebuilt. */
  sessionIds: string[];
}

export async function redactStored(db: Db, options: { onProgress?: (done: number, total: number) => void } = {}): Promise<RedactStoredReport> {
  const report: RedactStoredReport = { messages: 0, changedMessages: 0, changedSessions: 0, counts: {}, sessionIds: [] };
  const touched = new Set<string>();
  const total = await db.message.count();
  options.onProgress?.(0, total);
  let after: string | undefined;
  for (;;) {
    const rows = await db.message.findMany({
      select: { id: true, sessionId: true, content: true, metadata: true, redactions: true },
      orderBy: { id: 'asc' },
      take: BATCH,
      ...(after !== undefined && { cursor: { id: after }, skip: 1 }),
    });
    if (rows.length === 0) break;
    after = rows.at(-1)!.id;
    const changes: { sessionId: string; counts: RedactionCounts }[] = [];
    const updates = [];
    for (const row of rows) {
      const redacted = await redactMessageFields(row.content, row.metadata);
      if (redacted.redactions === null) continue;
      const counts = JSON.parse(redacted.redactions) as RedactionCounts;
      changes.push({ sessionId: row.sessionId, counts });
      // Only if the row is still what was read: a server sharing a PostgreSQL database may have
      // updated it meanwhile (an open turn's reply), and redacted that itself.
      updates.push(
        db.message.updateMany({
          where: { id: row.id, content: row.content, metadata: row.metadata },
          data: { content: redacted.content, metadata: redacted.metadata, redactions: mergeCounts(row.redactions, counts) },
        }),
      );
    }
    const written = updates.length > 0 ? await db.$transaction(updates) : [];
    for (const [i, { count }] of written.entries()) {
      if (count === 0) continue;
      sumCounts(report.counts, changes[i]!.counts);
      touched.add(changes[i]!.sessionId);
      report.changedMessages += 1;
    }
    report.messages += rows.length;
    options.onProgress?.(Math.min(report.messages, total), total);
  }

  const sessions = await db.session.findMany({
    where: { OR: [{ title: { not: null } }, { metadata: { not: null } }] },
    select: { sessionId: true, title: true, metadata: true },
  });
  for (const session of sessions) {
    const title = session.title === null ? null : await redactText(session.title);
    const metadata = session.metadata === null ? null : await redactJsonText(session.metadata);
    const counts = sumCounts({ ...title?.counts }, metadata?.counts ?? {});
    if (Object.keys(counts).length === 0) continue;
    const { count } = await db.session.updateMany({
      where: { sessionId: session.sessionId, title: session.title, metadata: session.metadata },
      data: { title: title?.text ?? null, metadata: metadata?.text ?? null },
    });
    if (count === 0) continue;
    sumCounts(report.counts, counts);
    report.changedSessions += 1;
    touched.add(session.sessionId);
  }
  report.sessionIds = [...touched].sort();
  return report;
}
