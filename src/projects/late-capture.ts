/**
 * A turn whose close met a fault of the machine (git missing, the disk full) while the agent's
 * paths were being captured (issue 26 item 8). Without git the close cannot hash anything, but
 * it can still say which paths were the agent's (touchedPaths) and what each looked like then:
 * its size, mode and times (`print`). The committer captures them later, once git runs again,
 * if none changed since, and commits as it would have; a path that changed meanwhile may hold
 * the user's edit, so then nothing is captured and the turn is skipped, saying why.
 */
import type { Config } from '../config.js';
import type { TurnCapture } from './capture.js';
import type { PlaceProject } from './project-place.js';
import { captureAtClose, type LateCapture } from './turn-close.js';
import { printOf } from './working-tree.js';

/** The paths whose print differs from `later`'s. */
async function changedSince(workdir: string, later: LateCapture): Promise<string[]> {
  const now = await printOf(workdir, later.paths);
  return later.paths.filter((path) => now.get(path) !== later.print[path]).sort();
}

/**
 * The capture the close could not make, made now if the agent's paths are as the close saw them
 * (looked at before and after the capture, so a write during it counts too).
 * @returns `changed` (nothing captured) when one of them changed since the close.
 * @throws what the capture throws (git still missing: the committer tries again later).
 */
export async function captureLater(
  project: PlaceProject,
  config: Config,
  sessionId: string,
  later: LateCapture,
): Promise<{ changed: string[] } | { capture: TurnCapture; claim(turnId: string): Promise<void> }> {
  const before = await changedSince(project.workdir, later);
  if (before.length > 0) return { changed: before };
  const close = await captureAtClose(project, config, { sessionId, touched: later.paths, dirtyAtStart: later.dirtyAtStart, startedAt: null });
  const after = await changedSince(project.workdir, later);
  if (after.length > 0) return { changed: after };
  return { capture: close.capture, claim: close.claim };
}
