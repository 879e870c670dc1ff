/**
 * What a guarded restore writes, as a pure function of what the agent left in
 * the working tree turn by turn. Each turn (and each restore) records the
 * states it left its paths in, with what HEAD held for them before; a restore
 * to turn T puts every path the agent ever touched in the session back to its
 * state after T (or before the agent first touched it), and is allowed only
 * where the working tree still holds what the agent last left there.
 */
import type { FileState } from '../git/project-plumbing.js';

export type { FileState };

/** A path's state as the agent left it, and as HEAD held it when captured. */
export interface RecordedState extends FileState {
  baseMode: string | null;
  baseOid: string | null;
}

/** One turn's or one restore's recorded states, in the order they happened. */
export interface AgentEvent {
  files: readonly RecordedState[];
}

export interface RestorePlan {
  /** Every path the agent touched, sorted. */
  paths: string[];
  /** What the agent last left at each path: the working tree must still hold it. */
  lastLeft: FileState[];
  /** The states to write (only the paths whose state changes). */
  writes: FileState[];
}

function state(path: string, mode: string | null, oid: string | null): FileState {
  return { path, mode: oid ? mode : null, oid };
}

/**
 * @param events every recorded event of the session, oldest first.
 * @param upTo index in `events` of the turn to restore to (-1: before the first turn).
 */
export function planRestore(events: readonly AgentEvent[], upTo: number): RestorePlan {
  const first = new Map<string, RecordedState>();
  const last = new Map<string, RecordedState>();
  const atTarget = new Map<string, RecordedState>();
  events.forEach((event, index) => {
    for (const file of event.files) {
      if (!first.has(file.path)) first.set(file.path, file);
      last.set(file.path, file);
      if (index <= upTo) atTarget.set(file.path, file);
    }
  });
  const paths = [...last.keys()].sort();
  const lastLeft = paths.map((p) => state(p, last.get(p)!.mode, last.get(p)!.oid));
  const writes: FileState[] = [];
  for (const path of paths) {
    const target = atTarget.get(path);
    const wanted = target ? state(path, target.mode, target.oid) : state(path, first.get(path)!.baseMode, first.get(path)!.baseOid);
    const left = last.get(path)!;
    if (wanted.oid !== left.oid || wanted.mode !== (left.oid ? left.mode : null)) writes.push(wanted);
  }
  return { paths, lastLeft, writes };
}

/** Paths whose state in `now` differs from `expected` (a deletion matches an absent path). */
export function changedPaths(expected: readonly FileState[], now: readonly FileState[]): string[] {
  const current = new Map(now.map((s) => [s.path, s]));
  return expected
    .filter((e) => {
      const n = current.get(e.path);
      const nowOid = n?.oid ?? null;
      return nowOid !== e.oid || (e.oid !== null && n?.mode !== e.mode);
    })
    .map((e) => e.path);
}
