/**
 * The MCP tools: what an agent may ask of its own history (search, sessions, turns, their
 * diffs and files, the project's history) and the two things it may do (put files back as they
 * were after a turn, fork the conversation at a turn). Each runs the API's own operations
 * (src/mcp/operations.ts), so its checks, limits and errors are the API's.
 */
import { realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve as resolvePath, sep } from 'node:path';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { AGENT_EMAIL } from '../projects/agent-commits.js';
import { encodeCursor } from '../services/page.js';
import { ToolError, type Run } from './execute.js';
import { fitList, fitScaled, type ToolAnswer } from './fit.js';
import type { McpTurnFragment, Role } from './gql/graphql.js';
import {
  FileAtQuery,
  FileHistoryQuery,
  ProjectHistoryQuery,
  ProjectsQuery,
  RewindMutation,
  SearchQuery,
  SessionsQuery,
  TurnDiffQuery,
  TurnQuery,
  TurnStatesQuery,
} from './operations.js';
import { clip, cut, firstLine, outcomeLine, promptOf, replyOf, sessionUri, toolCallsOf, turnUri } from './render.js';

export interface Tool<S extends z.ZodType = z.ZodType> {
  name: string;
  title: string;
  description: string;
  input: S;
  annotations: ToolAnnotations;
  call(args: z.output<S>, run: Run): Promise<ToolAnswer>;
}

const tool = <S extends z.ZodType>(spec: Tool<S>): Tool => spec as unknown as Tool;

// ---------------------------------------------------------------- inputs

const sessionInput = z.string().min(1).max(200).describe('The session id: `sessionId` as list_sessions and search give it.');
const turnInput = z
  .number()
  .int()
  .min(1)
  .max(1_000_000_000)
  .describe("The turn's number along the session's current branch (1 is the first). Leave out for the latest turn.");
const projectInput = z
  .string()
  .min(1)
  .max(4096)
  .describe("The project: its id (list_sessions gives each session's), or the absolute path of its folder (the agent's working directory).");
const agentInput = z.string().min(1).max(200).describe('Only sessions of this agent: claude-code, codex, gemini, or an agentId.');
const sinceInput = z
  .string()
  .max(40)
  .refine((text) => !Number.isNaN(Date.parse(text)), { message: 'must be a date or time such as 2026-12-01 or 2026-12-01T09:00:00Z' })
  .describe('Only from this date or time on (ISO 8601, e.g. 2026-12-01 or 2026-12-01T09:00:00Z).');
const cursorInput = z.string().min(1).max(1000).describe('`nextCursor` from the page before; leave out for the first page.');
const limitInput = (byDefault: number, max: number, what: string) =>
  z.number().int().min(1).max(max).default(byDefault).describe(`How many ${what}: ${byDefault} when left out, at most ${max}.`);
const pathInput = z
  .string()
  .min(1)
  .max(4096)
  .describe("A file of the project: relative to its folder (src/app.ts), or absolute inside it (as the agent's own tools name files).");
const offsetInput = z
  .number()
  .int()
  .min(0)
  .max(100_000_000)
  .default(0)
  .describe('Start at this character of the text (when an answer was cut, it says which offset comes next).');

// ---------------------------------------------------------------- shared reads

/** The cursor of the turn before `turn` on the current branch (none for the first): `after` it, `first: 1` lists `turn`. */
function turnPage(turn: number | undefined): { after?: string; first?: number; last?: number } {
  if (turn === undefined) return { last: 1 };
  return turn === 1 ? { first: 1 } : { after: encodeCursor('turn', turn - 1), first: 1 };
}

function sessionNotFound(sessionId: string): ToolError {
  return new ToolError(`No session ${JSON.stringify(sessionId)}: list_sessions or search give the ids there are.`, 'NOT_FOUND', { field: 'session' });
}

function turnNotFound(sessionId: string, turn: number | undefined, total: number | undefined, branch: string | undefined): ToolError {
  if (turn === undefined) return new ToolError(`Session ${sessionId} has no turn yet.`, 'NOT_FOUND', { field: 'turn' });
  const has = total !== undefined ? ` has ${total} turn${total === 1 ? '' : 's'}${branch ? ` on its branch ${branch}` : ''}` : ' has no such turn';
  return new ToolError(`Session ${sessionId}${has}: turn ${turn} is not one of them.`, 'NOT_FOUND', { field: 'turn' });
}

/** A `project` argument that names a folder rather than an id. */
const isFolder = (project: string) => project.includes('/') || project.includes('\\');

/** The project's id, from its id (checked by the operation that takes it) or a folder inside it. */
async function projectIdOf(run: Run, project: string): Promise<string> {
  return isFolder(project) ? (await projectOf(run, project)).projectId : project;
}

/** The project's id and folder, from its id or a folder inside it (the deepest project holding it). */
async function projectOf(run: Run, project: string): Promise<{ projectId: string; workdir: string }> {
  const { projects } = await run(ProjectsQuery, {});
  const nodes = projects.edges.map((edge) => edge.node);
  if (!isFolder(project)) {
    const found = nodes.find((node) => node.projectId === project);
    if (!found) throw new ToolError(`No project ${JSON.stringify(project)}: list_sessions shows each session's project.`, 'NOT_FOUND', { field: 'project' });
    return found;
  }
  let folder = resolvePath(project);
  try {
    // Projects are kept by their real path; the agent may name the folder through a symlink.
    folder = realpathSync(folder);
  } catch {
    // A folder that is not there: compared as given, and found in no project.
  }
  const owning = nodes
    .filter((p) => folder === p.workdir || folder.startsWith(p.workdir.endsWith('/') ? p.workdir : `${p.workdir}/`))
    .sort((a, b) => b.workdir.length - a.workdir.length)[0];
  if (!owning) throw new ToolError(`No project has the folder ${folder}: list_sessions shows each session's project.`, 'NOT_FOUND', { field: 'project' });
  return owning;
}

/**
 * `path` relative to the project folder `workdir`: as given when relative; an absolute path inside
 * the folder made relative; one outside it refused (the API checks the rest: no `..`, no `.git`).
 */
function projectPath(path: string, workdir: string): string {
  if (!isAbsolute(path)) return path;
  const outside = (rel: string) => rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel);
  let inside = relative(workdir, resolvePath(path));
  // The folder as the agent names it may reach the project through a symlink (macOS's /tmp): its real path.
  if (outside(inside)) inside = relative(workdir, realFolderOf(path));
  if (outside(inside)) {
    throw new ToolError(`${path} is not inside the project folder ${workdir}: give a file of the project, relative to that folder or inside it.`, 'BAD_USER_INPUT', { field: 'path' });
  }
  return inside.split(sep).join('/');
}

/** `path` with its folder's symlinks resolved (the file itself may not exist); as given when the folder does not either. */
function realFolderOf(path: string): string {
  try {
    return join(realpathSync(dirname(path)), basename(path));
  } catch {
    return resolvePath(path);
  }
}

function isoDate(text: string | undefined): string | undefined {
  return text === undefined ? undefined : new Date(text).toISOString();
}

function moreLine(nextCursor: string | null, tool: string, cut: boolean): string {
  if (!nextCursor) return '';
  return cut
    ? `\nThe answer was cut to stay short: call ${tool} again with cursor "${nextCursor}" for the rest.`
    : `\nThere is more: call ${tool} again with cursor "${nextCursor}".`;
}

/**
 * `{ note }` for the structured content when there is something to say (how to ask for the rest):
 * Claude Code gives the model a tool's structured content rather than its text, so both say it.
 */
function noteOf(note: string): { note?: string } {
  const trimmed = note.trim();
  return trimmed === '' ? {} : { note: trimmed };
}

function agentOf(session: { agentId: string | null; source: string | null }): string | null {
  return session.agentId ?? session.source;
}

// ---------------------------------------------------------------- the tools

const search = tool({
  name: 'search',
  title: 'Search past sessions',
  description:
    'Full-text search over every recorded session: what the user asked, what the agent answered, tool calls and their results. ' +
    'Words must all match; "a phrase" in quotes, -word to exclude, prefix* for a prefix; qualifiers role:user|assistant|tool, tool:NAME, path:PATH. ' +
    'Best matches first, each with its session, turn, a snippet and a URI to read the turn. Use it to recall what was decided or done before.',
  input: z.strictObject({
    query: z.string().min(1).max(1000).describe('What to look for, e.g. `retry backoff`, `"connection refused"`, `role:user database`.'),
    project: projectInput.optional(),
    session: sessionInput.optional(),
    agent: agentInput.optional(),
    role: z.enum(['user', 'assistant', 'tool', 'system']).optional().describe("Only messages of this role: the user's, the agent's replies, tool results."),
    since: sinceInput.optional(),
    limit: limitInput(10, 50, 'hits'),
    cursor: cursorInput.optional(),
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async call(args, run) {
    const projectId = args.project === undefined ? undefined : await projectIdOf(run, args.project);
    const filter = {
      ...(projectId !== undefined ? { projectId } : {}),
      ...(args.session !== undefined ? { sessionId: args.session } : {}),
      ...(args.agent !== undefined ? { agent: args.agent } : {}),
      ...(args.role !== undefined ? { role: args.role.toUpperCase() as Role } : {}),
      ...(args.since !== undefined ? { since: isoDate(args.since) } : {}),
    };
    const { search: found } = await run(SearchQuery, { query: args.query, filter, first: args.limit, ...(args.cursor ? { after: args.cursor } : {}) });
    const hits = found.edges.map(({ cursor, node }) => ({
      cursor,
      hit: {
        session: node.session.sessionId,
        sessionTitle: node.session.title,
        turn: node.turnNumber,
        role: node.message.role.toLowerCase(),
        tool: node.message.toolName,
        at: node.message.createdAt,
        snippet: node.snippet,
        uri: node.turnNumber !== null ? turnUri(node.session.sessionId, node.turnNumber) : sessionUri(node.session.sessionId),
      },
    }));
    return fitList(hits, (kept, wasCut) => {
      const nextCursor = wasCut ? kept.at(-1)?.cursor ?? args.cursor ?? null : found.pageInfo.hasNextPage ? found.pageInfo.endCursor : null;
      const lines = kept.map(
        ({ hit }) =>
          `- ${hit.sessionTitle ? `"${firstLine(hit.sessionTitle, 80)}" ` : ''}(session ${hit.session}${hit.turn !== null ? `, turn ${hit.turn}` : ''}, ${hit.role}${hit.tool ? ` ${hit.tool}` : ''}, ${hit.at}): ${hit.snippet.replace(/\s+/g, ' ')}\n  ${hit.uri}`,
      );
      const head =
        found.totalCount === 0
          ? `No message matches ${JSON.stringify(args.query)}.`
          : `${found.totalCount} message${found.totalCount === 1 ? '' : 's'} match ${JSON.stringify(args.query)}${found.rankedMatches < found.totalCount ? ` (the ${found.rankedMatches} newest ranked)` : ''}; here ${kept.length}:`;
      return {
        text: [head, ...lines].join('\n') + moreLine(nextCursor, 'search', wasCut),
        data: { totalCount: found.totalCount, hits: kept.map((k) => k.hit), nextCursor, ...noteOf(moreLine(nextCursor, 'search', wasCut)) },
      };
    });
  },
});

const listSessions = tool({
  name: 'list_sessions',
  title: 'List sessions',
  description:
    "The recorded sessions, newest first: each with its id, title, agent, number of turns, when it started and was last active, its branch and its project. Narrow by project (id or folder), agent, or start date.",
  input: z.strictObject({
    project: projectInput.optional(),
    agent: agentInput.optional(),
    since: sinceInput.optional().describe('Only sessions started from this date or time on (ISO 8601).'),
    limit: limitInput(20, 100, 'sessions'),
    cursor: cursorInput.optional(),
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async call(args, run) {
    const projectId = args.project === undefined ? undefined : await projectIdOf(run, args.project);
    const { sessions } = await run(SessionsQuery, {
      first: args.limit,
      ...(args.cursor ? { after: args.cursor } : {}),
      ...(args.agent !== undefined ? { agent: args.agent } : {}),
      ...(projectId !== undefined ? { projectId } : {}),
      ...(args.since !== undefined ? { startedAfter: isoDate(args.since) } : {}),
    });
    const items = sessions.edges.map(({ cursor, node }) => ({
      cursor,
      session: {
        sessionId: node.sessionId,
        title: node.title,
        agent: agentOf(node),
        turns: node.turnCount.totalCount,
        startedAt: node.createdAt,
        lastActivityAt: node.lastActivityAt,
        branch: node.currentBranch,
        project: node.project ? { projectId: node.project.projectId, name: node.project.name } : null,
        uri: sessionUri(node.sessionId),
      },
    }));
    return fitList(items, (kept, wasCut) => {
      const nextCursor = wasCut ? kept.at(-1)?.cursor ?? args.cursor ?? null : sessions.pageInfo.hasNextPage ? sessions.pageInfo.endCursor : null;
      const lines = kept.map(
        ({ session: s }) =>
          `- ${s.sessionId}: ${s.title ? `"${firstLine(s.title, 100)}"` : '(untitled)'}, ${s.agent ?? 'unknown agent'}, ${s.turns} turn${s.turns === 1 ? '' : 's'}, started ${s.startedAt}, last active ${s.lastActivityAt}, branch ${s.branch}${s.project ? `, project ${s.project.name} (${s.project.projectId})` : ''}`,
      );
      const head = sessions.totalCount === 0 ? 'No session matches.' : `${sessions.totalCount} session${sessions.totalCount === 1 ? '' : 's'}; here ${kept.length}:`;
      return {
        text: [head, ...lines].join('\n') + moreLine(nextCursor, 'list_sessions', wasCut),
        data: { totalCount: sessions.totalCount, sessions: kept.map((k) => k.session), nextCursor, ...noteOf(moreLine(nextCursor, 'list_sessions', wasCut)) },
      };
    });
  },
});

interface ChangedFile {
  path: string;
  status: string;
  additions: number;
  deletions: number;
}

function changedFiles(turn: McpTurnFragment): ChangedFile[] {
  const source = turn.projectCommit?.commit ?? turn.projectCommit?.snapshot;
  return (source?.diff.files ?? []).map((f) => ({ path: f.path, status: f.status.toLowerCase(), additions: f.additions, deletions: f.deletions }));
}

const getTurn = tool({
  name: 'get_turn',
  title: 'Read a turn',
  description:
    "One turn of a session: the user's prompt, the agent's reply, the tool calls it made (inputs summarised, each with its result's first line), " +
    "the project files it changed with line counts, and what happened to them at the turn's end: committed, skipped (and why: the user had work in progress) with a snapshot, or nothing to commit.",
  input: z.strictObject({ session: sessionInput, turn: turnInput.optional() }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async call(args, run) {
    const { session } = await run(TurnQuery, { sessionId: args.session, ...turnPage(args.turn) });
    if (!session) throw sessionNotFound(args.session);
    const turn = session.turns.edges[0]?.node;
    if (!turn) throw turnNotFound(session.sessionId, args.turn, session.turnCount.totalCount, session.currentBranch);
    const calls = toolCallsOf(turn.messages);
    const files = changedFiles(turn);
    const prompt = promptOf(turn.messages);
    const reply = replyOf(turn.messages);
    const commit = turn.projectCommit;
    const project = commit
      ? { result: commit.result, reason: commit.reason, message: commit.message, commitSha: commit.commitSha, snapshotSha: commit.snapshotSha, paths: commit.paths, dirtyPaths: commit.dirtyPaths }
      : null;
    const uri = turnUri(session.sessionId, turn.number);
    return fitScaled((scale) => {
      const promptCut = cut(prompt, Math.floor(4000 * scale));
      const replyCut = cut(reply, Math.floor(8000 * scale));
      const keptCalls = calls.slice(0, Math.max(1, Math.floor(60 * scale))).map((c) => ({ ...c, input: clip(c.input, Math.max(40, Math.floor(200 * scale))), result: c.result && clip(c.result, Math.max(40, Math.floor(160 * scale))) }));
      const keptFiles = files.slice(0, Math.max(1, Math.floor(200 * scale)));
      const notes: string[] = [];
      if (promptCut.omitted || replyCut.omitted || keptCalls.length < calls.length || keptFiles.length < files.length) {
        notes.push(`Cut to stay short: read the resource ${uri} for every message (get_turn_diff for the changes).`);
      }
      const text = [
        `Session ${session.sessionId}${session.title ? ` "${firstLine(session.title, 80)}"` : ''}, turn ${turn.number} of ${session.turnCount.totalCount} (branch ${turn.branch}${turn.open ? ', still open' : ''}).`,
        '',
        'Prompt:',
        promptCut.text + (promptCut.omitted ? `… (${promptCut.omitted} more characters)` : ''),
        '',
        'Reply:',
        (replyCut.text || '(no text)') + (replyCut.omitted ? `… (${replyCut.omitted} more characters)` : ''),
        '',
        calls.length === 0 ? 'Tool calls: none.' : `Tool calls (${calls.length}):`,
        ...keptCalls.map((c) => `- ${c.name} ${c.input}${c.result ? ` → ${c.result}` : ''}`),
        ...(keptCalls.length < calls.length ? [`- … and ${calls.length - keptCalls.length} more`] : []),
        '',
        files.length === 0 ? 'Project files changed: none.' : `Project files changed (${files.length}):`,
        ...keptFiles.map((f) => `- ${f.status} ${f.path} (+${f.additions} -${f.deletions})`),
        ...(keptFiles.length < files.length ? [`- … and ${files.length - keptFiles.length} more`] : []),
        '',
        `Project commit: ${outcomeLine(commit) ?? (session.project ? 'none recorded' : 'the session has no project')}.`,
        ...notes,
      ].join('\n');
      return {
        text,
        data: {
          session: session.sessionId,
          turn: turn.number,
          turns: session.turnCount.totalCount,
          branch: turn.branch,
          open: turn.open,
          prompt: promptCut.text,
          promptOmittedChars: promptCut.omitted,
          reply: replyCut.text,
          replyOmittedChars: replyCut.omitted,
          toolCalls: keptCalls,
          toolCallCount: calls.length,
          files: keptFiles,
          fileCount: files.length,
          project,
          uri,
          ...noteOf(notes.join(' ')),
        },
      };
    });
  },
});

function patchOf(file: { path: string; oldPath: string | null; status: string; patch?: string | null }): string {
  const patch = file.patch ?? '';
  const from = file.status === 'ADDED' ? '/dev/null' : `a/${file.oldPath ?? file.path}`;
  const to = file.status === 'DELETED' ? '/dev/null' : `b/${file.path}`;
  const header = `diff --git a/${file.oldPath ?? file.path} b/${file.path}\n`;
  if (patch.startsWith('diff --git')) return patch.endsWith('\n') ? patch : `${patch}\n`;
  if (patch === '') return `${header}(${file.patch === null ? 'binary file' : 'no content change'})\n`;
  const body = patch.startsWith('---') ? patch : `--- ${from}\n+++ ${to}\n${patch}`;
  return header + (body.endsWith('\n') ? body : `${body}\n`);
}

const getTurnDiff = tool({
  name: 'get_turn_diff',
  title: "A turn's project diff",
  description:
    "The changes a turn made to the project's files, as a unified patch: the agent's commit for that turn, or, when the commit was skipped because the user had work in progress, the snapshot kept instead. " +
    'Give `path` for one file. Long patches are cut; the answer says which `offset` continues.',
  input: z.strictObject({ session: sessionInput, turn: turnInput.optional(), path: pathInput.optional(), offset: offsetInput }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async call(args, run) {
    const { session } = await run(TurnDiffQuery, { sessionId: args.session, withPatches: true, ...turnPage(args.turn) });
    if (!session) throw sessionNotFound(args.session);
    const turn = session.turns.edges[0]?.node;
    if (!turn) throw turnNotFound(session.sessionId, args.turn, undefined, undefined);
    const outcome = turn.projectCommit;
    const source = outcome?.commit ?? outcome?.snapshot ?? null;
    if (!source) {
      const why = !session.project
        ? 'the session has no project'
        : outcome
          ? `its project commit: ${outcomeLine(outcome)}`
          : 'no project commit was recorded for it';
      return {
        text: `Turn ${turn.number} of session ${session.sessionId} has no project diff (${why}).`,
        data: { session: session.sessionId, turn: turn.number, sha: null, kind: null, files: [], patch: '', nextOffset: null },
      };
    }
    const kind = outcome?.commit ? 'commit' : 'snapshot';
    let files = source.diff.files;
    const wanted = args.path === undefined ? undefined : projectPath(args.path, session.project!.workdir);
    if (wanted !== undefined) {
      files = files.filter((f) => f.path === wanted || f.oldPath === wanted);
      if (files.length === 0) {
        const names = source.diff.files.map((f) => f.path);
        throw new ToolError(
          `Turn ${turn.number}'s diff does not touch ${wanted}; it changed ${names.length === 0 ? 'no file' : names.slice(0, 20).join(', ') + (names.length > 20 ? `, and ${names.length - 20} more` : '')}.`,
          'NOT_FOUND',
          { field: 'path' },
        );
      }
    }
    const patch = files.map(patchOf).join('');
    const list = files.map((f) => ({ path: f.path, oldPath: f.oldPath, status: f.status.toLowerCase(), additions: f.additions, deletions: f.deletions, truncated: f.truncated }));
    return fitScaled((scale) => {
      const rest = patch.slice(args.offset);
      const kept = cut(rest, Math.floor(10_000 * scale));
      const shownList = list.slice(0, Math.max(1, Math.floor(300 * scale)));
      const nextOffset = kept.omitted > 0 ? args.offset + kept.text.length : null;
      const notes = [
        ...(nextOffset !== null ? [`The patch was cut: call get_turn_diff again with offset ${nextOffset}${args.path === undefined ? ', or with path for one file' : ''} for the rest.`] : []),
        ...(files.some((f) => f.truncated) ? ['A file\'s patch was cut at 256 KiB by the server: read_file_at_turn gives the whole file.'] : []),
      ];
      const head = `Turn ${turn.number} of session ${session.sessionId}: ${kind} ${source.sha.slice(0, 12)}, ${files.length} file${files.length === 1 ? '' : 's'}${args.path === undefined ? `, +${source.diff.additions} -${source.diff.deletions}` : ''}${args.offset > 0 ? ` (from character ${args.offset})` : ''}.`;
      return {
        text: [head, '', kept.text, ...notes].join('\n'),
        data: { session: session.sessionId, turn: turn.number, sha: source.sha, kind, files: shownList, fileCount: list.length, patch: kept.text, nextOffset, ...noteOf(notes.join(' ')) },
      };
    });
  },
});

const readFileAtTurn = tool({
  name: 'read_file_at_turn',
  title: 'A file as a turn left it',
  description:
    "A project file's content as the agent left it after a turn: from that turn's commit or snapshot, or, for a turn that changed nothing, from the last turn before it that recorded the project. " +
    'Long files are cut; the answer says which `offset` continues.',
  input: z.strictObject({ session: sessionInput, turn: turnInput, path: pathInput, offset: offsetInput }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async call(args, run) {
    // The turn itself, or the last one at or before it with a commit or a snapshot.
    const { session } = await run(TurnStatesQuery, { sessionId: args.session, before: encodeCursor('turn', args.turn + 1), last: 100 });
    if (!session) throw sessionNotFound(args.session);
    if (!session.project) throw new ToolError(`Session ${session.sessionId} has no project, so none of its files was recorded.`, 'NOT_FOUND', { field: 'session' });
    const turns = session.turns.edges.map((e) => e.node);
    if (turns.at(-1)?.number !== args.turn) throw turnNotFound(session.sessionId, args.turn, undefined, undefined);
    const recorded = [...turns].reverse().find((t) => t.projectCommit?.commitSha || t.projectCommit?.snapshotSha);
    if (!recorded) {
      throw new ToolError(
        `No project state was recorded at or up to 100 turns before turn ${args.turn} of session ${session.sessionId} (no commit or snapshot).`,
        'NOT_FOUND',
        { field: 'turn' },
      );
    }
    const path = projectPath(args.path, session.project.workdir);
    const { session: again } = await run(FileAtQuery, {
      sessionId: session.sessionId,
      path,
      ...(recorded.number > 1 ? { after: encodeCursor('turn', recorded.number - 1) } : {}),
    });
    const outcome = again?.turns.edges[0]?.node.projectCommit;
    const at = outcome?.commit ?? outcome?.snapshot;
    if (!at) throw turnNotFound(session.sessionId, recorded.number, undefined, undefined);
    const kind = outcome?.commit ? 'commit' : 'snapshot';
    const from = recorded.number === args.turn ? `turn ${args.turn}'s ${kind} ${at.sha.slice(0, 12)}` : `turn ${recorded.number}'s ${kind} ${at.sha.slice(0, 12)} (turn ${args.turn} recorded no change of the project)`;
    const blob = at.file;
    if (!blob) {
      return {
        text: `${path} did not exist after turn ${args.turn} (${from}).`,
        data: { session: session.sessionId, turn: args.turn, fromTurn: recorded.number, sha: at.sha, path, exists: false, content: null, nextOffset: null },
      };
    }
    if (blob.isBinary || blob.text === null) {
      return {
        text: `${blob.path} after turn ${args.turn} is a binary file of ${blob.size} bytes (${from}).`,
        data: { session: session.sessionId, turn: args.turn, fromTurn: recorded.number, sha: at.sha, path: blob.path, exists: true, binary: true, size: blob.size, content: null, nextOffset: null },
      };
    }
    const text = blob.text;
    return fitScaled((scale) => {
      const kept = cut(text.slice(args.offset), Math.floor(11_000 * scale));
      const nextOffset = kept.omitted > 0 ? args.offset + kept.text.length : null;
      const notes = [
        ...(nextOffset !== null ? [`Cut: call read_file_at_turn again with offset ${nextOffset} for the rest.`] : []),
        ...(blob.truncated && nextOffset === null ? ['The server reads at most the first 1 MiB of a file; the rest is not shown.'] : []),
      ];
      return {
        text: [`${blob.path} after turn ${args.turn} (${from}), ${blob.size} bytes${args.offset > 0 ? `, from character ${args.offset}` : ''}:`, '', kept.text, ...notes].join('\n'),
        data: { session: session.sessionId, turn: args.turn, fromTurn: recorded.number, sha: at.sha, path: blob.path, exists: true, binary: false, size: blob.size, content: kept.text, nextOffset, ...noteOf(notes.join(' ')) },
      };
    });
  },
});

/** An agent's commit names its session and turn in trailers (src/projects/agent-commits.ts). */
function agentTrailers(message: string): { session: string | null; turn: number | null } {
  const session = /^Session-Id: (.+)$/m.exec(message)?.[1]?.trim() ?? null;
  const turn = /^(?:Turn|Restore-To): (\d+)$/m.exec(message)?.[1];
  return { session, turn: turn !== undefined ? Number(turn) : null };
}

const projectHistory = tool({
  name: 'project_history',
  title: "The project's history",
  description:
    "The project's commits, newest first, the agent's and the user's told apart: each agent commit with the session and turn that made it. Give `path` for the commits that changed one file.",
  input: z.strictObject({ project: projectInput, path: pathInput.optional(), limit: limitInput(20, 100, 'commits'), cursor: cursorInput.optional() }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async call(args, run) {
    const { projectId, workdir } = await projectOf(run, args.project);
    const path = args.path === undefined ? undefined : projectPath(args.path, workdir);
    const page = { projectId, first: args.limit, ...(args.cursor ? { after: args.cursor } : {}) };
    let name: string;
    let total: number;
    let pageInfo: { hasNextPage: boolean; endCursor: string | null };
    let items: { cursor: string; commit: Record<string, unknown> & { sha: string; headline: string; by: string; session: string | null; turn: number | null; author: string; date: string } }[];
    if (path === undefined) {
      const { project } = await run(ProjectHistoryQuery, page);
      if (!project) throw new ToolError(`No project ${JSON.stringify(projectId)}.`, 'NOT_FOUND', { field: 'project' });
      ({ name } = project);
      total = project.history.totalCount;
      pageInfo = project.history.pageInfo;
      items = project.history.edges.map(({ cursor, node }) => {
        const agent = node.author.email === AGENT_EMAIL;
        const trailers = agent ? agentTrailers(node.message) : { session: null, turn: null };
        return { cursor, commit: { sha: node.sha, headline: node.headline, by: agent ? 'agent' : 'user', session: trailers.session, turn: trailers.turn, author: node.author.name, date: node.author.date } };
      });
    } else {
      const { project } = await run(FileHistoryQuery, { ...page, path });
      if (!project) throw new ToolError(`No project ${JSON.stringify(projectId)}.`, 'NOT_FOUND', { field: 'project' });
      ({ name } = project);
      total = project.fileHistory.totalCount;
      pageInfo = project.fileHistory.pageInfo;
      items = project.fileHistory.edges.map(({ cursor, node }) => ({
        cursor,
        commit: {
          sha: node.commit.sha,
          headline: node.commit.headline,
          by: node.origin === 'AGENT' ? 'agent' : 'user',
          session: node.session?.sessionId ?? null,
          turn: node.turnNumber,
          author: node.commit.author.name,
          date: node.commit.author.date,
        },
      }));
    }
    return fitList(items, (kept, wasCut) => {
      const nextCursor = wasCut ? kept.at(-1)?.cursor ?? args.cursor ?? null : pageInfo.hasNextPage ? pageInfo.endCursor : null;
      const lines = kept.map(
        ({ commit: c }) =>
          `- ${c.sha.slice(0, 12)} ${c.by === 'agent' ? `agent${c.session ? ` (session ${c.session}${c.turn !== null ? `, turn ${c.turn}` : ''})` : ''}` : `user ${c.author}`}, ${c.date}: ${firstLine(c.headline, 120)}`,
      );
      const head = `${name}: ${total} commit${total === 1 ? '' : 's'}${path !== undefined ? ` changed ${path}` : ''}; here ${kept.length}, newest first:`;
      return {
        text: [head, ...lines].join('\n') + moreLine(nextCursor, 'project_history', wasCut),
        data: { projectId, name, totalCount: total, commits: kept.map((k) => k.commit), nextCursor, ...noteOf(moreLine(nextCursor, 'project_history', wasCut)) },
      };
    });
  },
});

const restoreFiles = tool({
  name: 'restore_files',
  title: 'Put files back as they were after a turn',
  description:
    "Puts the project files the agent changed back to their state after a turn (0: before the session's first turn). Only the agent's paths are written; a path the user changed since is a conflict and then nothing is written. " +
    'With confirm false (the default) it only answers the plan: each path and what it would become, and the conflicts. With confirm true it writes, recorded as a commit (or a private snapshot when the user has work in progress); the answer says which turn undoes it.',
  input: z.strictObject({
    session: sessionInput,
    turn: z.number().int().min(0).max(1_000_000_000).describe("The turn whose end state to restore (0: before the session's first turn)."),
    confirm: z.boolean().default(false).describe('false: answer the plan and change nothing. true: write the files.'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  async call(args, run) {
    let rewind;
    try {
      ({ rewind } = await run(RewindMutation, { input: { sessionId: args.session, turn: args.turn, code: true, conversation: false, dryRun: !args.confirm } }));
    } catch (error) {
      if (error instanceof ToolError && error.code === 'CONFLICT' && Array.isArray(error.extensions.paths)) {
        const paths = (error.extensions.paths as unknown[]).map(String);
        throw new ToolError(`${error.message} Paths changed since the agent left them: ${paths.join(', ')}. Nothing was written.`, 'CONFLICT', error.extensions);
      }
      throw error;
    }
    const code = rewind.code;
    const changes = (code?.changes ?? []).map((c) => ({ path: c.path, action: c.action.toLowerCase(), conflict: c.conflict }));
    const data = {
      session: args.session,
      turn: rewind.turn,
      dryRun: rewind.dryRun,
      changes,
      conflicts: code?.conflicts ?? [],
      result: code?.result ? { kind: code.result.result.toLowerCase(), message: code.result.message, paths: code.result.paths, commitSha: code.result.commit?.sha ?? null } : null,
      undoTurn: rewind.undoTurn,
      message: rewind.message,
    };
    return fitList(changes, (kept, wasCut) => {
      const lines = kept.map((c) => `- ${c.action} ${c.path}${c.conflict ? ' (CONFLICT: the user changed it since)' : ''}`);
      const head = rewind.dryRun
        ? `Plan (nothing written; call again with confirm: true to write): ${rewind.message}`
        : `Done: ${rewind.message}${rewind.undoTurn !== null ? ` To undo, restore_files to turn ${rewind.undoTurn}.` : ''}`;
      return {
        text: [head, ...lines, ...(wasCut ? [`… and ${changes.length - kept.length} more paths.`] : [])].join('\n'),
        data: { ...data, changes: kept, changeCount: changes.length, ...noteOf(wasCut ? `${changes.length - kept.length} more paths are not listed.` : '') },
      };
    });
  },
});

const forkSession = tool({
  name: 'fork_session',
  title: 'Fork the conversation at a turn',
  description:
    "Moves the session's recorded conversation back to a turn, so that its next user message starts a new branch from there (named fork-<that message's id>); the later turns stay on their branch, nothing is deleted. " +
      "It changes entity-memory's record, not what the agent itself remembers of the conversation; files are not touched (restore_files does that).",
  input: z.strictObject({ session: sessionInput, turn: z.number().int().min(1).max(1_000_000_000).describe('The turn to continue from.') }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async call(args, run) {
    const { rewind } = await run(RewindMutation, { input: { sessionId: args.session, turn: args.turn, code: false, conversation: true, dryRun: false } });
    const conversation = rewind.conversation;
    if (!conversation) throw new ToolError('The rewind did not move the conversation.', 'INTERNAL_SERVER_ERROR');
    const data = {
      session: args.session,
      fromTurn: conversation.fromTurn.number,
      fromBranch: conversation.fromTurn.branch,
      laterTurnsBranch: conversation.branch,
      laterTurns: conversation.laterTurns,
      nextBranch: conversation.laterTurns > 0 ? "fork-<the next user message's id>" : conversation.fromTurn.branch,
      moved: conversation.moved,
      message: rewind.message,
    };
    const text =
      conversation.laterTurns > 0
        ? `The session now continues from turn ${conversation.fromTurn.number}: the next user message starts the branch fork-<its message id>; the ${conversation.laterTurns} later turn${conversation.laterTurns === 1 ? '' : 's'} stay on ${conversation.branch}.`
        : `Turn ${conversation.fromTurn.number} is already the latest of ${conversation.branch}: the next turn continues there.`;
    return { text, data };
  },
});

export const TOOLS: readonly Tool[] = [search, listSessions, getTurn, getTurnDiff, readFileAtTurn, projectHistory, restoreFiles, forkSession];
