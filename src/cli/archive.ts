/** `entity-memory archive` and `unarchive`: session repos kept as one git bundle each, and brought back. */
import { CannotRun, exitFor } from './errors.js';
import { answeredInfo, COMMON_LINES, DATA_DIR_LINE } from './help.js';
import { assertSessionIds, bytesText, maintenanceArgs, withDataDir, type MaintenanceDeps } from './maintenance.js';

const ARCHIVE_HELP = `usage: entity-memory archive SESSION... [--dry-run] [--json] [--data-dir DIR]
       entity-memory archive --older-than DAYS [--dry-run] [--json] [--data-dir DIR]

Keeps a session's repo as one git bundle in <data-dir>/archive/ (every branch and commit) and
removes the repo with its working tree. The session's database rows stay: the conversation,
its turns and search read as before; its timeline, commits and diffs read empty until the repo
comes back. It comes back as it was (the same commits, HEAD where it was) by itself when the
session is opened in the web UI, checked out, or given a new turn, or with
entity-memory unarchive. verify checks an archived session's bundle.

A session in use is left alone: a turn open, a mirror pass or another instance's lease on it,
work queued for it, or a turn in the last 10 minutes. Takes the data dir's lock, so it is
refused while a server runs on it. Safe to stop at any moment: a session is left with its repo
as it was, or with its archive whole (written, checked and fsynced before the repo is removed).

  --older-than DAYS  every session whose last turn (or creation, with none) is older than DAYS
                     days, written 90 or 90d
  --dry-run          change nothing: say which sessions would be archived
  --json             one JSON array: sessionId, archived, repoBytes, bundleBytes, or skipped
${DATA_DIR_LINE}
${COMMON_LINES}

Exit status: 0 done; 1 to 125 the number of sessions that could not be archived; 2 when it
could not run (bad flag, unknown session, data dir in use), with one line on stderr.`;

const UNARCHIVE_HELP = `usage: entity-memory unarchive SESSION... [--data-dir DIR]

Brings archived session repos back from their bundles (entity-memory archive), as they were:
every branch at the same commit, HEAD where it was, the working tree checked out; the bundle is
checked against its checksum first and removed after. A session that is not archived is said
so and left alone. Takes the data dir's lock, so it is refused while a server runs on it (the
server brings a session back by itself when it is opened, checked out or given a turn).

${DATA_DIR_LINE}
${COMMON_LINES}

Exit status: 0 done; 1 to 125 the number of sessions that could not be brought back (a damaged
archive is left as it is); 2 when it could not run, with one line on stderr.`;

interface Row {
  sessionId: string;
  archived: boolean;
  repoBytes?: number;
  bundleBytes?: number;
  skipped?: string;
  error?: string;
}

export async function archiveCommand(argv: string[]): Promise<number> {
  if (answeredInfo(argv, () => ARCHIVE_HELP)) return 0;
  const { values, positionals, config } = maintenanceArgs(
    argv,
    { 'older-than': { type: 'string' }, 'dry-run': { type: 'boolean' }, json: { type: 'boolean' } },
    { positionals: true },
  );
  const olderThan = values['older-than'];
  if ((typeof olderThan === 'string') === positionals.length > 0) throw new CannotRun('name the sessions to archive, or give --older-than DAYS (not both)');
  const days = typeof olderThan === 'string' ? parseDays(olderThan) : null;
  assertSessionIds(positionals);
  const dryRun = values['dry-run'] === true;
  return withDataDir(config, 'archive', async (deps) => {
    const [{ archiveSession, isArchived, sessionsIdleSince }, { whyInUse }] = await Promise.all([import('../mirror/archive.js'), import('../mirror/gc.js')]);
    const now = new Date();
    const sessions = days === null ? await named(deps.db, positionals) : await sessionsIdleSince(deps.db, new Date(now.getTime() - days * 86_400_000));
    const rows: Row[] = [];
    for (const session of sessions) {
      const row: Row = { sessionId: session.sessionId, archived: false };
      rows.push(row);
      // (Archived already: archiveSession says so, after removing what a killed run may have left.)
      if (dryRun && isArchived(config, session.sessionId)) {
        row.skipped = 'archived already';
        continue;
      }
      const busy = await whyInUse(deps.db, session, now);
      if (busy) {
        row.skipped = busy;
        continue;
      }
      if (dryRun) continue;
      try {
        const outcome = await archiveSession(deps, session.sessionId, now);
        if (outcome.archived) Object.assign(row, { archived: true, repoBytes: outcome.repoBytes, bundleBytes: outcome.bundleBytes });
        else row.skipped = outcome.reason;
      } catch (error) {
        row.error = (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
      }
    }
    const failed = rows.filter((r) => r.error !== undefined).length;
    if (values.json) {
      console.log(JSON.stringify(rows));
      return exitFor(failed);
    }
    for (const r of rows) {
      const what = r.error !== undefined ? `FAILED\t${r.error}` : r.skipped !== undefined ? `left alone: ${r.skipped}` : r.archived ? `${bytesText(r.repoBytes!)} -> ${bytesText(r.bundleBytes!)}` : 'would be archived';
      console.log(`${r.sessionId}\t${what}`);
    }
    const archived = rows.filter((r) => r.archived);
    const freed = archived.reduce((n, r) => n + r.repoBytes! - r.bundleBytes!, 0);
    const skipped = rows.filter((r) => r.skipped !== undefined).length;
    if (dryRun) console.log(`dry run: ${rows.length - skipped} sessions would be archived, ${skipped} left alone; nothing was changed`);
    else console.log(`${archived.length} sessions archived (${bytesText(freed)} freed); ${skipped} left alone, ${failed} failed`);
    return exitFor(failed);
  });
}

export async function unarchiveCommand(argv: string[]): Promise<number> {
  if (answeredInfo(argv, () => UNARCHIVE_HELP)) return 0;
  const { positionals, config } = maintenanceArgs(argv, {}, { positionals: true });
  if (positionals.length === 0) throw new CannotRun('name the sessions to bring back');
  assertSessionIds(positionals);
  return withDataDir(config, 'unarchive', async (deps) => {
    const { unarchiveSession } = await import('../mirror/archive.js');
    const sessions = await named(deps.db, positionals);
    let failed = 0;
    for (const { sessionId } of sessions) {
      try {
        console.log(`${sessionId}\t${(await unarchiveSession(deps, sessionId)) ? 'brought back' : 'not archived'}`);
      } catch (error) {
        failed++;
        console.log(`${sessionId}\tFAILED\t${(error instanceof Error ? error.message : String(error)).split('\n')[0]}`);
      }
    }
    return exitFor(failed);
  });
}

type Deps = MaintenanceDeps;

/** DAYS as `90` or `90d`: a whole number of days, at least 1. */
function parseDays(text: string): number {
  const match = /^(\d{1,5})d?$/.exec(text.trim());
  const days = match ? Number(match[1]) : NaN;
  if (!(days >= 1)) throw new CannotRun(`--older-than ${JSON.stringify(text)} is not a number of days (write 90 or 90d)`);
  return days;
}

/** The named sessions, in the order given; an unknown one stops the command before anything is done. */
async function named(db: Deps['db'], ids: string[]): Promise<{ sessionId: string; openTurnId: string | null }[]> {
  const rows = await db.session.findMany({ where: { sessionId: { in: ids } }, select: { sessionId: true, openTurnId: true } });
  const byId = new Map(rows.map((r) => [r.sessionId, r]));
  const unknown = ids.filter((id) => !byId.has(id));
  if (unknown.length > 0) throw new CannotRun(`no session ${unknown.join(', ')} in this data dir`);
  return [...new Set(ids)].map((id) => byId.get(id)!);
}
