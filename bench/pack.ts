/**
 * A session repo's `.git` on disk as a session grows (issue 31: "`.git` per turn <= 3 KB on disk
 * after 10,000 turns committed one by one, pack count bounded"). A real server records N turns
 * over HTTP, one at a time, each waited for until its commit is announced (so each is its own
 * mirror pass, its own fast-import and its own pack, as an agent's turns are), and the mirror
 * keeps the repo as it does for users (its periodic geometric repack). The text is realistic:
 * windows of this repository's sources and README as prompts, replies and file reads.
 * At checkpoints it prints `.git` on disk (du: blocks used), bytes per turn, packs and loose
 * objects, against the turns' own files (the working tree's bytes, du --apparent-size; about 2 KB
 * a turn, as in the issue's measurement). Baseline at the end: the same repo copied and
 * packed whole by `git repack -a -d -f` (what git itself makes of the same objects).
 * Usage: npm run bench -- pack [turns, default 10000]
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../src/logger.js';
import { startServer } from '../src/server.js';
import { corpus, random } from './corpus.js';
import { bareGitEnv, benchConfig, fmt, postGraphQL } from './stats.js';

const turns = Number(process.argv[2] ?? 10_000);
const checkpoints = new Set([1_000, 2_500, 5_000, 10_000, 20_000, turns].filter((n) => n <= turns));
const GOAL_BYTES_PER_TURN = 3 * 1024;

const dataDir = mkdtempSync(join(tmpdir(), 'em-bench-pack-'));
const server = await startServer(benchConfig(dataDir), createLogger('silent'));
const sessionId = 'growth';
const repoDir = join(dataDir, 'sessions', sessionId);
const env = bareGitEnv(true);
const du = (args: string[]) => Number(execFileSync('du', ['-sk', ...args], { encoding: 'utf8' }).split('\t')[0]) * 1024;
const packsIn = (dir: string) => readdirSync(join(dir, '.git', 'objects', 'pack')).filter((name) => name.endsWith('.pack')).length;
const looseIn = (dir: string) => Number(/^count: (\d+)$/m.exec(execFileSync('git', ['count-objects', '-v'], { cwd: dir, env, encoding: 'utf8' }))?.[1] ?? 0);

try {
  const { words, files } = corpus();
  const next = random(31);
  const window = (min: number, max: number) => {
    const length = min + Math.floor(next() * (max - min));
    const at = Math.floor(next() * (words.length - length));
    return words.slice(at, at + length).join(' ');
  };
  await postGraphQL(server.url, 'mutation C($input: CreateSessionInput!) { createSession(input: $input) { sessionId } }', { input: { sessionId } });
  const events = server.app.deps.pubsub.subscribe('turnCommitted', sessionId);

  console.log(`.git growth: ${fmt(turns)} turns recorded one at a time over HTTP, each waited for until committed; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  console.log('   turns   .git on disk   per turn   packs   loose   turn files   recording');
  let started = performance.now();
  for (let n = 1; n <= turns; n++) {
    const committed = events.next();
    const file = files[Math.floor(next() * files.length)]!;
    await postGraphQL(server.url, 'mutation R($input: RecordTurnInput!) { recordTurn(input: $input) { number } }', {
      input: {
        sessionId,
        user: { content: window(8, 30) },
        assistant: { content: window(15, 70), metadata: { toolCalls: [{ id: `toolu_${n}`, name: 'Read', input: { file_path: file } }] } },
        toolResults: [{ content: window(20, 100), toolName: 'Read', toolCallId: `toolu_${n}` }],
      },
    });
    await committed;
    if (checkpoints.has(n)) {
      const git = du([join(repoDir, '.git')]);
      const worktree = du(['--apparent-size', '--exclude=.git', repoDir]);
      const seconds = (performance.now() - started) / 1000;
      console.log(
        `${fmt(n).padStart(8)}   ${`${fmt(git / 1024)} KiB`.padStart(12)}   ${`${fmt(git / n)} B`.padStart(8)}   ${String(packsIn(repoDir)).padStart(5)}   ${String(looseIn(repoDir)).padStart(5)}   ${`${fmt(worktree / n)} B/turn`.padStart(12)}   ${fmt(seconds, 1)} s`,
      );
      started = performance.now();
    }
  }
  await events.return(undefined);
  const git = du([join(repoDir, '.git')]);
  const packsDir = du([join(repoDir, '.git', 'objects', 'pack')]);
  const index = du([join(repoDir, '.git', 'index')]);
  console.log(`of .git: packs ${fmt(packsDir / 1024)} KiB, index ${fmt(index / 1024)} KiB (the working tree's), the rest ${fmt((git - packsDir - index) / 1024)} KiB`);
  await server.stop();

  // Baseline: the same objects packed whole by git, on a copy.
  const copy = join(dataDir, 'packed-copy');
  cpSync(repoDir, copy, { recursive: true });
  execFileSync('git', ['repack', '-a', '-d', '-f', '-q'], { cwd: copy, env });
  const packed = du([join(copy, '.git')]);
  console.log(`baseline: the same repo packed whole (git repack -a -d -f): ${fmt(packed / 1024)} KiB, ${fmt(packed / turns)} B per turn; the mirror's is ×${(git / packed).toFixed(2)} of it`);
  console.log(
    `goal after ${fmt(turns)} turns: .git ${fmt(git / turns)} B per turn (<= ${fmt(GOAL_BYTES_PER_TURN)}: ${git / turns <= GOAL_BYTES_PER_TURN ? 'ok' : 'missed'}), ${packsIn(repoDir)} packs; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`,
  );
} finally {
  await server.stop().catch(() => {});
  rmSync(dataDir, { recursive: true, force: true });
}
