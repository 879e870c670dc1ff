/**
 * `npm run bench -- <name> [args]`: runs one benchmark script of bench/.
 * Each prints its figures and the ratio against a baseline measured in the same run.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const [name = 'record-turn', ...args] = process.argv.slice(2);
const script = join(import.meta.dirname, `${name}.ts`);
if (!/^[a-z-]+$/.test(name) || !existsSync(script)) {
  console.error(`unknown benchmark ${JSON.stringify(name)}; see the files in bench/`);
  process.exit(2);
}
const result = spawnSync(process.execPath, ['--import', 'tsx', script, ...args], { stdio: 'inherit' });
process.exit(result.status ?? 1);
