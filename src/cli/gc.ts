/** `entity-memory gc`: the data dir made smaller (session repos compacted, old moved-aside copies removed). */
import { exitFor } from './errors.js';
import { answeredInfo, COMMON_LINES, DATA_DIR_LINE } from './help.js';
import { bytesText as size, maintenanceArgs, withDataDir } from './maintenance.js';
import { progress } from './progress.js';

const GC_HELP = `usage: entity-memory gc [--dry-run] [--json] [--data-dir DIR]

Makes the data dir smaller: each session repo is packed into one pack and the objects no branch
reaches are pruned (git repack -a -d, prune, pack-refs), and the copies of broken repos kept in
<data-dir>/moved-aside/ are removed once they are 14 days old. A session in use is left alone: a
turn open, a mirror pass or another instance's lease on it, work queued for it, or a turn in the
last 10 minutes. Takes the data dir's lock, so it is refused while a server runs on it. Safe to
stop at any moment: each step is git's own, and leaves either the old packs or the new one.

  --dry-run        change nothing: say what each repo holds and what would be removed
  --json           one JSON object: sessions (sessionId, before, after, packs, looseObjects,
                   skipped, error; bytes on disk) and movedAside (name, bytes, movedAt, expired)
${DATA_DIR_LINE}
${COMMON_LINES}

Prints one line per session repo (SESSION  BEFORE  AFTER, or why it was left alone), the
moved-aside copies removed, and the bytes freed.

Exit status: 0 done; 1 to 125 the number of repos that could not be compacted (125: that many
or more); 2 when it could not run (bad flag, no data dir, data dir in use), with one line on stderr.`;

export async function gcCommand(argv: string[]): Promise<number> {
  if (answeredInfo(argv, () => GC_HELP)) return 0;
  const { values, config } = maintenanceArgs(argv, { 'dry-run': { type: 'boolean' }, json: { type: 'boolean' } });
  const dryRun = values['dry-run'] === true;
  return withDataDir(config, 'gc', async (deps) => {
    const { collectGarbage } = await import('../mirror/gc.js');
    const report = await collectGarbage(deps, { dryRun, ...(values.json ? {} : { onProgress: progress('gc') }) });
    const failed = report.sessions.filter((s) => s.error !== undefined).length;
    if (values.json) {
      console.log(JSON.stringify(report));
      return exitFor(failed);
    }
    for (const s of report.sessions) {
      const what = s.error !== undefined ? `FAILED\t${s.error}` : s.skipped !== undefined ? `left alone: ${s.skipped}` : s.after === null ? `${s.packs} packs, ${s.looseObjects} loose objects` : size(s.after);
      console.log(`${s.sessionId}\t${size(s.before)}\t${what}`);
    }
    const expired = report.movedAside.filter((m) => m.expired);
    const asideBytes = expired.reduce((n, m) => n + m.bytes, 0);
    if (report.movedAside.length > 0) {
      console.log(
        `moved-aside: ${expired.length} of ${report.movedAside.length} copies older than 14 days ${dryRun ? 'would be removed' : 'removed'} (${size(asideBytes)})`,
      );
    }
    const compacted = report.sessions.filter((s) => s.after !== null);
    const before = compacted.reduce((n, s) => n + s.before, 0);
    const after = compacted.reduce((n, s) => n + s.after!, 0);
    const skipped = report.sessions.filter((s) => s.skipped !== undefined).length;
    if (dryRun) console.log(`dry run: ${report.sessions.length - skipped - failed} repos would be compacted, ${skipped} left alone; nothing was changed`);
    else console.log(`${compacted.length} repos compacted: ${size(before)} -> ${size(after)}; ${size(before - after + asideBytes)} freed; ${skipped} left alone, ${failed} failed`);
    return exitFor(failed);
  });
}
