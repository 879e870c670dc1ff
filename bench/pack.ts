/**
 * `.git` growth per turn with and without the worker's periodic pack:
 * N turn commits (5 message files + meta.json each) through commitTurn,
 * the size of `.git` (du) before and after `packLooseObjects`, against the
 * bytes of the turns' files. Usage: npm run bench -- pack [turns]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionRepo } from '../src/git/session-repo.js';
import { messageFile, metaFile } from '../src/mirror/files.js';

const turns = Number(process.argv[2] ?? 1000);
const dir = mkdtempSync(join(tmpdir(), 'em-bench-pack-'));
try {
  const repo = new SessionRepo(dir);
  await repo.init();
  const meta = metaFile({ sessionId: 's', title: null, agentId: null, model: null, projectId: null, createdAt: new Date(0) });
  const duKiB = () => Number(execFileSync('du', ['-sk', repo.gitDir], { encoding: 'utf8' }).split('\t')[0]);
  let parent: string | null = null;
  let seq = 1;
  let fileBytes = 0;
  for (let t = 1; t <= turns; t++) {
    const files = [meta];
    for (let k = 0; k < 5; k++) {
      const file = messageFile({
        messageId: `m${seq}`,
        seq,
        role: k === 0 ? 'USER' : k === 1 ? 'ASSISTANT' : 'TOOL',
        content: `${'x'.repeat(250)} ${seq}`,
        predecessorMessageId: null,
        callerMessageId: null,
        toolName: null,
        toolCallId: null,
        createdAt: new Date(seq * 1000),
        metadata: null,
      });
      files.push(file);
      fileBytes += file.content.length;
      seq++;
    }
    const author = { name: 'entity-memory', email: 'entity-memory@openprogram.invalid', date: new Date(t * 1000) };
    parent = (await repo.commitTurn({ branch: 'main', parent, files, message: `turn ${t}\n`, author })).sha;
  }
  const loose = duKiB();
  const started = Date.now();
  await repo.packLooseObjects();
  const packMs = Date.now() - started;
  const packed = duKiB();
  const perTurn = (kib: number) => Math.round((kib * 1024) / turns);
  console.log(`pack benchmark: ${turns} turns, ${Math.round(fileBytes / turns)} B of message files per turn`);
  console.log(`.git with loose objects:      ${loose} KiB, ${perTurn(loose)} B per turn (${(perTurn(loose) / (fileBytes / turns)).toFixed(1)}x the files)`);
  console.log(`.git after repack -d:         ${packed} KiB, ${perTurn(packed)} B per turn (${(perTurn(packed) / (fileBytes / turns)).toFixed(1)}x the files)`);
  console.log(`repack -d of ${turns} turns took ${packMs} ms (${(packMs / turns).toFixed(2)} ms per turn, off the commit path)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
