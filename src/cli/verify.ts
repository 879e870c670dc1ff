/** `entity-memory verify`: each session's turns against its repo, read-only. */
import { databaseTarget } from '../config.js';
import { readableByOthers } from '../private-files.js';
import { exitFor } from './errors.js';
import { answeredInfo, COMMON_LINES, DATA_DIR_LINE } from './help.js';
import { failures, maintenanceArgs } from './maintenance.js';
import { progress } from './progress.js';

const VERIFY_HELP = `usage: entity-memory verify [--data-dir DIR]

Per session: closed turns in the database against turn commits in its repo, one line each;
then whether the search index holds every message.
Read-only (the database is opened read-only and never migrated), so it runs beside a server.

${DATA_DIR_LINE}
${COMMON_LINES}

Exit status: 0 every session in sync and the search index whole; 1 to 125 the number of
sessions out of sync or failed, plus one for a search index that is not (125: that many or more); 2 when it could not run (bad flag, no data dir, no database, or a
database older than this entity-memory), with one line on stderr.`;

/**
 * `verify`: per session, closed turns in the database against commits in its repo. Read-only and
 * lock-free, so it runs beside a server (which may be committing: a session caught mid-commit
 * shows one turn ahead).
 */
export async function verifyCommand(argv: string[]): Promise<number> {
  if (answeredInfo(argv, () => VERIFY_HELP)) return 0;
  const { config } = maintenanceArgs(argv, {});
  const [{ openDb }, { verify }, { checkSearchIndex }] = await Promise.all([
    import('../db/index.js'),
    import('../mirror/reconcile.js'),
    import('../services/search/index-check.js'),
  ]);
  const db = await openDb({ ...databaseTarget(config), readOnly: true });
  try {
    // Only the database and the repos: the logger and pubsub (graphql-yoga, most of a second to load) are not needed.
    const rows = await verify({ db, config }, progress('verify'));
    const reasons = new Map(failures(rows).map((f) => [f.sessionId, f.reason]));
    console.log('session\tdag_turns\tgit_commits\tstatus');
    for (const row of rows) {
      const status = row.ok ? 'ok' : row.error !== null ? `FAILED\t${reasons.get(row.sessionId)}` : 'MISMATCH';
      console.log(`${row.sessionId}\t${row.dagTurns}\t${row.gitCommits}\t${status}`);
    }
    console.log(`${rows.length} sessions, ${reasons.size} mismatched or failed`);
    const search = await checkSearchIndex(db);
    console.log(search.ok ? `search index: ${search.indexed} of ${search.messages} messages` : `search index: FAILED\t${search.problem}`);
    if (readableByOthers(config.dataDir)) {
      console.error(`entity-memory: warning: ${config.dataDir} can be read by other accounts on this machine; start the server once (it makes the data dir private) or run chmod 700 on it`);
    }
    return exitFor(reasons.size + (search.ok ? 0 : 1));
  } finally {
    await db.$disconnect();
  }
}
