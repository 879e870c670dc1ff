/** What every command prints for `--help` and `--version`, and the help lines they share. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../package-root.js';

export const DATA_DIR_LINE = `  --data-dir DIR       data dir (must exist); default $OPENPROGRAM_HOME, else ~/.openprogram
  --database-url URL   the PostgreSQL database the servers use; default $DATABASE_URL, else the data dir's SQLite`;
export const COMMON_LINES = `  -h, --help           print this help and exit
  --version            print the version and exit`;

/** This entity-memory's version, from its package.json. */
export function version(): string {
  const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

/** `--help`/`-h` or `--version` anywhere among a command's arguments: print and stop. */
export function answeredInfo(argv: string[], help: () => string): boolean {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(help());
    return true;
  }
  if (argv.includes('--version')) {
    console.log(`entity-memory ${version()}`);
    return true;
  }
  return false;
}
