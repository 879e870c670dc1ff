/**
 * Portable sessions: one session as one file (`entity-memory export`), recreated on another machine
 * with the same commits, branches and messages (`entity-memory import bundle`).
 *
 * The file is a tar archive (tar-stream) of three entries, in this order:
 * - `manifest.json`: the format and its version, the session's id, what was counted, HEAD and every
 *   ref of its repo, and each other entry's size and sha256;
 * - `rows.jsonl`: the session's database rows, one JSON object per line, `{"table": …, "row": …}`
 *   (Session, Branch, Message, Turn), dates as ISO strings;
 * - `repo.bundle`: the session repo as one git bundle (every ref); absent for a session without a
 *   commit.
 * `tar tf FILE` lists them; `tar xf` takes them out. An import checks every size and checksum
 * before it writes anything, and refuses a file from a newer format.
 *
 * Projects are not moved: the session comes without one unless the import is told `projectId`.
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { extract as tarExtract, pack as tarPack } from 'tar-stream';
import type { Branch, Message, Prisma, Session, Turn } from '../../generated/prisma/client.js';
import type { Config } from '../../config.js';
import { insertRows } from '../../db/bulk-insert.js';
import { deferForeignKeysSql, dialectOf } from '../../db/dialect.js';
import type { Db } from '../../db/index.js';
import { sha256OfFile } from '../../fs/sha256.js';
import { isValidId } from '../../ids.js';
import { archiveOf, archivedBundleFile, moveAside, openSessionRepo, removeStaleStaging, sessionRepoFromBundle, sessionRepoPath, stagingPath } from '../../mirror/index.js';

export const EXPORT_FORMAT = 'entity-memory-session';
export const EXPORT_VERSION = 1;

export interface ExportManifest {
  format: typeof EXPORT_FORMAT;
  version: number;
  sessionId: string;
  exportedAt: string;
  counts: { messages: number; turns: number; branches: number };
  /** The repo's HEAD and refs; null for a session without a commit (no repo.bundle then). */
  repo: { head: { ref: string | null; sha: string | null }; refs: Record<string, string> } | null;
  /** Each entry after the manifest: its size in bytes and sha256. */
  entries: Record<string, { bytes: number; sha256: string }>;
}

/** A file `import bundle` will not take: truncated, tampered with, of a newer format, or not one at all. Nothing was written. */
export class BundleRefusedError extends Error {
  override readonly name = 'BundleRefusedError';
}

type Deps = { db: Db; config: Pick<Config, 'dataDir'> };

const ROWS = 'rows.jsonl';
const BUNDLE = 'repo.bundle';
/** A rows.jsonl longer than this is refused before it is read (a 10,000-turn session writes about 10 MB). */
const MAX_ROWS_BYTES = 2 * 1024 ** 3;

/**
 * Writes the session to `out` (replaced if it exists, written beside it first). Call with the data
 * dir's lock held: the rows and the repo are read as one moment.
 * @returns the manifest written.
 */
export async function exportSession(deps: Deps, sessionId: string, out: string, now = new Date()): Promise<ExportManifest> {
  const { db, config } = deps;
  const session = await db.session.findUnique({ where: { sessionId } });
  if (!session) throw new BundleRefusedError(`no session ${sessionId} in this data dir`);
  const [branches, messages, turns] = await Promise.all([
    db.branch.findMany({ where: { sessionId }, orderBy: { createdAt: 'asc' } }),
    db.message.findMany({ where: { sessionId }, orderBy: { seq: 'asc' } }),
    db.turn.findMany({ where: { sessionId }, orderBy: [{ createdAt: 'asc' }, { number: 'asc' }] }),
  ]);
  const lines = [
    line('Session', session),
    ...branches.map((row) => line('Branch', row)),
    ...messages.map((row) => line('Message', row)),
    ...turns.map((row) => line('Turn', row)),
  ];
  const rows = Buffer.from(lines.join(''));
  const scratch = `${out}.partial-bundle`;
  let bundle: string | null = null;
  let repoPart: ExportManifest['repo'] = null;
  try {
    const archived = await archiveOf(config, sessionId);
    if (archived) {
      bundle = archivedBundleFile(config, sessionId);
      repoPart = { head: archived.head, refs: archived.refs };
    } else {
      const repo = openSessionRepo(config, sessionId);
      const refs = repo.exists() ? await repo.allRefs() : new Map<string, string>();
      if (refs.size > 0) {
        await repo.writeBundle(scratch);
        bundle = scratch;
        repoPart = { head: await repo.headRef(), refs: Object.fromEntries(refs) };
      }
    }
    const manifest: ExportManifest = {
      format: EXPORT_FORMAT,
      version: EXPORT_VERSION,
      sessionId,
      exportedAt: now.toISOString(),
      counts: { messages: messages.length, turns: turns.length, branches: branches.length },
      repo: repoPart,
      entries: {
        [ROWS]: { bytes: rows.length, sha256: createHash('sha256').update(rows).digest('hex') },
        ...(bundle ? { [BUNDLE]: { bytes: (await stat(bundle)).size, sha256: await sha256OfFile(bundle) } } : {}),
      },
    };
    const partial = `${out}.partial`;
    try {
      const pack = tarPack();
      const written = pipeline(pack, createWriteStream(partial, { mode: 0o600 }));
      const head = { mtime: now, mode: 0o600 };
      pack.entry({ ...head, name: 'manifest.json' }, `${JSON.stringify(manifest, null, 2)}\n`);
      pack.entry({ ...head, name: ROWS }, rows);
      if (bundle) {
        const entry = pack.entry({ ...head, name: BUNDLE, size: manifest.entries[BUNDLE]!.bytes });
        await pipeline(createReadStream(bundle), entry);
      }
      pack.finalize();
      await written;
      await rename(partial, out);
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    }
    return manifest;
  } finally {
    await rm(scratch, { force: true });
  }
}

export type ImportBundleOutcome =
  | { imported: true; manifest: ExportManifest }
  | { imported: false; manifest: ExportManifest; reason: string };

/**
 * Recreates the session a file of `exportSession` holds: its repo from the bundle (the same
 * commits and refs, HEAD where it was), then its rows in one transaction. Every entry's size and
 * checksum is checked first; a session this data dir already has is skipped (the same file imported
 * twice changes nothing). Call with the data dir's lock held.
 * @throws BundleRefusedError for a file it will not take (nothing written).
 */
export async function importSessionBundle(deps: Deps, file: string, options: { projectId?: string } = {}): Promise<ImportBundleOutcome> {
  const { db, config } = deps;
  const work = join(config.dataDir, 'sessions', `.import+${process.pid}-${Date.now()}`);
  await mkdir(work, { recursive: true, mode: 0o700 });
  try {
    const { manifest, rows, bundle } = await readBundleFile(file, work);
    const sessionId = manifest.sessionId;
    if (await db.session.findUnique({ where: { sessionId }, select: { sessionId: true } })) {
      return { imported: false, manifest, reason: 'this data dir has that session already' };
    }
    if (options.projectId !== undefined && !(await db.project.findUnique({ where: { projectId: options.projectId }, select: { projectId: true } }))) {
      throw new BundleRefusedError(`no project ${options.projectId} in this data dir`);
    }
    const parsed = parseRows(rows, sessionId);
    // The repo first, beside the others: a bundle git refuses stops the import before a row is written.
    await removeStaleStaging(config, sessionId);
    const staging = stagingPath(config, sessionId);
    try {
      if (bundle && manifest.repo) {
        const whole = await sessionRepoFromBundle(staging, bundle, manifest.repo.head, manifest.repo.refs).catch((error: unknown) => {
          throw new BundleRefusedError(`git refuses the file's repo bundle: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
        });
        if (!whole) throw new BundleRefusedError('the repo bundle does not hold the refs its manifest lists');
      }
      await writeRows(db, parsed, options.projectId ?? null);
    } catch (error) {
      await rm(staging, { recursive: true, force: true });
      throw error;
    }
    if (bundle) {
      // Whatever was at the path (not this data dir's session: it had none) is kept aside, never deleted.
      await moveAside(config, sessionId);
      await rename(staging, sessionRepoPath(config, sessionId));
    } else {
      await rm(staging, { recursive: true, force: true });
    }
    return { imported: true, manifest };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** The file's entries, each checked against the manifest; the bundle written into `work`. */
async function readBundleFile(file: string, work: string): Promise<{ manifest: ExportManifest; rows: Buffer; bundle: string | null }> {
  let manifest: ExportManifest | undefined;
  let rows: Buffer | undefined;
  let bundle: string | null = null;
  const sums = new Map<string, { bytes: number; sha256: string }>();
  const extract = tarExtract();
  const reading = pipeline(createReadStream(file), extract).catch((error: unknown) => {
    throw refusal(`it is cut short or damaged (${error instanceof Error ? error.message : String(error)})`);
  });
  try {
    for await (const entry of extract) {
      const name = entry.header.name;
      if (manifest === undefined) {
        if (name !== 'manifest.json') throw refusal('it does not start with manifest.json');
        manifest = checkManifest(JSON.parse((await collect(entry, 1024 * 1024)).toString('utf8')) as unknown);
        continue;
      }
      const expected = manifest.entries[name];
      if (!expected) throw refusal(`it holds ${JSON.stringify(name.slice(0, 80))}, which its manifest does not list`);
      if (name === ROWS) {
        if (expected.bytes > MAX_ROWS_BYTES) throw refusal(`its rows are ${expected.bytes} bytes, more than this version reads`);
        rows = await collect(entry, expected.bytes);
        sums.set(name, { bytes: rows.length, sha256: createHash('sha256').update(rows).digest('hex') });
      } else if (name === BUNDLE) {
        bundle = join(work, BUNDLE);
        const hash = createHash('sha256');
        let bytes = 0;
        entry.on('data', (data) => {
          const chunk = data as Buffer;
          hash.update(chunk);
          bytes += chunk.length;
        });
        await pipeline(entry, createWriteStream(bundle, { mode: 0o600 }));
        sums.set(name, { bytes, sha256: hash.digest('hex') });
      } else {
        entry.resume();
      }
    }
    await reading;
  } catch (error) {
    extract.destroy();
    await reading.catch(() => undefined);
    if (error instanceof BundleRefusedError) throw error;
    if (error instanceof SyntaxError) throw refusal('its manifest is not JSON');
    throw refusal(`it is cut short or damaged (${error instanceof Error ? error.message : String(error)})`);
  }
  if (!manifest) throw refusal('it is empty');
  for (const [name, expected] of Object.entries(manifest.entries)) {
    const got = sums.get(name);
    if (!got) throw refusal(`it is truncated: ${name} is missing`);
    if (got.bytes !== expected.bytes || got.sha256 !== expected.sha256) throw refusal(`${name} fails its checksum (the file was changed or cut short)`);
  }
  if (!rows) throw refusal(`it has no ${ROWS}`);
  if ((bundle === null) !== (manifest.repo === null)) throw refusal('its manifest and its repo bundle disagree');
  return { manifest, rows, bundle };
}

function refusal(why: string): BundleRefusedError {
  return new BundleRefusedError(`not an entity-memory session export this version can import: ${why}`);
}

function checkManifest(value: unknown): ExportManifest {
  const m = value as Partial<ExportManifest> | null;
  if (!m || typeof m !== 'object' || m.format !== EXPORT_FORMAT) throw refusal('its manifest is not an entity-memory session export');
  if (typeof m.version !== 'number' || m.version > EXPORT_VERSION) {
    throw new BundleRefusedError(`written by a newer entity-memory (export format ${String(m.version)}; this version reads ${EXPORT_VERSION}): upgrade entity-memory to import it`);
  }
  if (typeof m.sessionId !== 'string' || !isValidId(m.sessionId)) throw refusal('its session id is not a valid id');
  if (!m.entries || typeof m.entries !== 'object') throw refusal('its manifest lists no entries');
  return m as ExportManifest;
}

async function collect(stream: AsyncIterable<unknown>, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const data of stream) {
    const chunk = data as Buffer;
    length += chunk.length;
    if (length > limit) throw refusal('an entry is longer than its manifest says');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

interface ParsedRows {
  session: Session;
  branches: Branch[];
  messages: Message[];
  turns: Turn[];
}

// Every column of the rows written (the keys of the generated row types, so a column added to the
// schema fails the typecheck here until it is listed); the names never come from the file.
const MESSAGE_COLUMNS = Object.keys({
  id: true, sessionId: true, messageId: true, seq: true, role: true, content: true, predecessorId: true, callerId: true,
  toolName: true, toolCallId: true, metadata: true, redactions: true, createdAt: true, turnId: true,
} satisfies Record<keyof Message, true>) as (keyof Message)[];
const TURN_COLUMNS = Object.keys({
  id: true, sessionId: true, number: true, branch: true, parentTurnId: true, userMessageId: true, open: true, durationMs: true,
  tokens: true, createdAt: true, closedAt: true, mirrorState: true, commitSha: true, mirroredAt: true, dirtyAtStart: true,
  touchedPaths: true, startedAt: true, projectResult: true, projectCommitSha: true, projectDirtyPaths: true, projectMessage: true,
  projectReason: true, projectId: true, projectHeadAtClose: true, projectFiles: true, projectSuspects: true,
  projectCaptureError: true, projectCaptureLater: true, projectUnattributed: true, projectSnapshotSha: true, messagesThrough: true,
} satisfies Record<keyof Turn, true>) as (keyof Turn)[];

const DATES: Record<string, string[]> = {
  Session: ['createdAt', 'projectJoinedAt'],
  Branch: ['createdAt'],
  Message: ['createdAt'],
  Turn: ['createdAt', 'closedAt', 'mirroredAt', 'startedAt'],
};

function line(table: string, row: object): string {
  return `${JSON.stringify({ table, row })}\n`;
}

function parseRows(rows: Buffer, sessionId: string): ParsedRows {
  const out: Partial<ParsedRows> & { branches: Branch[]; messages: Message[]; turns: Turn[] } = { branches: [], messages: [], turns: [] };
  const text = rows.toString('utf8');
  let n = 0;
  for (const raw of text.split('\n')) {
    n++;
    if (raw === '') continue;
    let parsed: { table?: unknown; row?: Record<string, unknown> };
    try {
      parsed = JSON.parse(raw) as typeof parsed;
    } catch {
      throw refusal(`${ROWS} line ${n} is not JSON`);
    }
    const { table, row } = parsed;
    if (typeof table !== 'string' || !DATES[table] || !row || typeof row !== 'object') throw refusal(`${ROWS} line ${n} is not a row of a session`);
    if (row.sessionId !== sessionId) throw refusal(`${ROWS} line ${n} belongs to another session`);
    for (const key of DATES[table]!) if (typeof row[key] === 'string') row[key] = new Date(row[key] as string);
    if (table === 'Session') out.session = row as unknown as Session;
    else if (table === 'Branch') out.branches.push(row as unknown as Branch);
    else if (table === 'Message') out.messages.push(row as unknown as Message);
    else out.turns.push(row as unknown as Turn);
  }
  if (!out.session) throw refusal(`${ROWS} has no Session row`);
  return out as ParsedRows;
}

/**
 * The rows in one transaction: the session (without a project unless told one), its messages, its
 * turns, its branches. Messages and turns name each other (a turn its user message, a message its
 * turn), so the foreign keys are checked once all are in: on PostgreSQL deferred to the commit; on
 * SQLite switched off for the load (its deferred checks search the tables whose keys have no index
 * for every row: 23 s for 10,000 turns) and checked with `foreign_key_check` before the commit.
 * Only the import's own connection runs meanwhile (it holds the data dir's lock).
 */
async function writeRows(db: Db, rows: ParsedRows, projectId: string | null): Promise<void> {
  const sqlite = dialectOf(db) === 'sqlite';
  if (sqlite) await db.$executeRawUnsafe('PRAGMA foreign_keys = OFF');
  try {
    await db.$transaction(
      async (tx) => {
        if (!sqlite) await tx.$executeRawUnsafe(deferForeignKeysSql(tx));
        const session = rows.session;
        await tx.session.create({
          data: { ...session, projectId, projectJoinedAt: projectId ? new Date() : null, projectDirtyBaseline: projectId ? session.projectDirtyBaseline : null } as Prisma.SessionUncheckedCreateInput,
        });
        await insertRows(tx, 'Message', MESSAGE_COLUMNS, rows.messages);
        // A turn's parent before it: PostgreSQL checks that key (not deferrable) at each statement's end.
        const turns = parentsFirst(rows.turns);
        await insertRows(tx, 'Turn', TURN_COLUMNS, turns);
        if (rows.branches.length > 0) await tx.branch.createMany({ data: rows.branches as Prisma.BranchCreateManyInput[] });
        if (sqlite) {
          for (const table of ['Session', 'Branch', 'Message', 'Turn']) {
            const broken = await tx.$queryRawUnsafe<unknown[]>(`PRAGMA foreign_key_check("${table}")`);
            if (broken.length > 0) throw refusal(`its rows name rows it does not hold (${table}: ${JSON.stringify(broken[0])})`);
          }
        }
      },
      { timeout: 600_000, maxWait: 60_000 },
    );
  } finally {
    if (sqlite) await db.$executeRawUnsafe('PRAGMA foreign_keys = ON');
  }
}




/** Turns ordered so that each comes after its parent (when the parent is among them). */
function parentsFirst(turns: Turn[]): Turn[] {
  const byId = new Map(turns.map((t) => [t.id, t]));
  const placed = new Set<string>();
  const out: Turn[] = [];
  const place = (turn: Turn, depth: number): void => {
    if (placed.has(turn.id)) return;
    if (depth > turns.length) throw refusal('its turns name each other in a cycle');
    const parent = turn.parentTurnId === null ? undefined : byId.get(turn.parentTurnId);
    if (parent) place(parent, depth + 1);
    placed.add(turn.id);
    out.push(turn);
  };
  for (const turn of turns) place(turn, 0);
  return out;
}
