/**
 * What a SessionStart hook installed with `--context` gives the agent (issue 29 item 5): the
 * project's last sessions — title, when, the last turn's prompt, the files its turns touched — and
 * one line saying entity-memory's MCP tools exist. At most CONTEXT_CHARS characters; nothing when
 * the project has no other session. Only what the database holds, which secrets were taken out
 * of before it was stored; never a file's content.
 */
import { excerpt } from '../../text.js';
import type { Deps } from '../deps.js';
import { projectOfCwd } from './record-hook-event.js';

export const CONTEXT_CHARS = 1_500;
const SESSIONS = 5;
const FILES = 6;

const TOOLS_LINE =
  "entity-memory's MCP tools (search, list_sessions, get_turn, get_turn_diff, read_file_at_turn, project_history, restore_files) read these sessions back: what was asked, said and changed, turn by turn.";

function when(at: Date): string {
  return `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

function paths(json: string | null): string[] {
  if (!json) return [];
  try {
    const parsed = JSON.parse(json) as unknown;
    return Array.isArray(parsed) ? parsed.filter((p): p is string => typeof p === 'string') : [];
  } catch {
    return [];
  }
}

/**
 * The context for session `sessionId` starting in `cwd`: '' when `cwd` is in no project, or the
 * project has no other session with a closed turn.
 */
export async function sessionStartContext(deps: Pick<Deps, 'db'>, sessionId: string, cwd: string | undefined): Promise<string> {
  const project = await projectOfCwd(deps, cwd);
  if (!project) return '';
  const sessions = await deps.db.session.findMany({
    where: { projectId: project.projectId, sessionId: { not: sessionId }, parentSessionId: null },
    orderBy: { createdAt: 'desc' },
    take: SESSIONS,
    select: { sessionId: true, title: true },
  });
  const lines: string[] = [];
  for (const session of sessions) {
    const turns = await deps.db.turn.findMany({
      where: { sessionId: session.sessionId, open: false },
      orderBy: { closedAt: 'desc' },
      take: 10,
      select: { number: true, closedAt: true, touchedPaths: true, userMessage: { select: { content: true } } },
    });
    const last = turns[0];
    if (!last) continue;
    const files = [...new Set(turns.flatMap((turn) => paths(turn.touchedPaths)))].slice(0, FILES);
    const title = session.title ? `"${excerpt(session.title, 70)}"` : 'untitled';
    lines.push(
      `- ${when(last.closedAt ?? new Date(0))}, ${title} (session ${session.sessionId}, turn ${last.number}): last asked "${excerpt(last.userMessage.content.replace(/\s+/g, ' '), 100)}"` +
        (files.length > 0 ? `; files: ${files.join(', ')}` : ''),
    );
  }
  if (lines.length === 0) return '';
  const head = `Recent sessions of this project (${excerpt(project.name, 60)}), newest first:`;
  const kept: string[] = [];
  let size = head.length + TOOLS_LINE.length + 2;
  for (const line of lines) {
    const cut = line.length > 400 ? `${line.slice(0, 399)}…` : line;
    if (size + cut.length + 1 > CONTEXT_CHARS) break;
    kept.push(cut);
    size += cut.length + 1;
  }
  return [head, ...kept, TOOLS_LINE].join('\n');
}
