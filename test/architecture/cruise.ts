/**
 * Running dependency-cruiser's API on a tree with one of the project's rule sets (src/'s or
 * web/src's), for the layer tests: no network, no build.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { cruise, type ICruiseOptions, type ICruiseResult, type IViolation } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';

/** The repository's root folder. */
export const root = join(import.meta.dirname, '..', '..');

/** Which rules, which tsconfig resolves the imports, and which folder is cruised (relative to the base dir). */
export interface RuleSet {
  config: string;
  tsconfig: string;
  folder: string;
}

export const SRC_RULES: RuleSet = { config: '.dependency-cruiser.cjs', tsconfig: 'tsconfig.json', folder: 'src' };
export const WEB_RULES: RuleSet = { config: 'web/.dependency-cruiser.cjs', tsconfig: 'web/tsconfig.json', folder: 'web/src' };

/** Cruises `<baseDir>/<rules.folder>` with the rules and tsconfig of this repository; the result's paths are relative to baseDir. */
export async function cruiseWith(rules: RuleSet, baseDir: string): Promise<ICruiseResult> {
  const options: ICruiseOptions = await extractDepcruiseOptions(join(root, rules.config));
  const tsConfig = extractTSConfig(join(root, rules.tsconfig));
  const { output } = await cruise([rules.folder], { ...options, baseDir }, {}, { tsConfig });
  if (typeof output === 'string') throw new Error(`dependency-cruiser answered text, not a result: ${output.slice(0, 200)}`);
  return output;
}

/** One line per violation: "rule: from -> to", a cycle spelled out. */
export function describeViolation(v: IViolation): string {
  const path = v.cycle?.length ? [v.from, ...v.cycle.map((step) => step.name)].join(' -> ') : `${v.from} -> ${v.to}`;
  return `${v.rule.name}: ${path}`;
}

/** Writes a fixture tree: each path (relative to dir) with its text. */
export function writeTree(dir: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}
