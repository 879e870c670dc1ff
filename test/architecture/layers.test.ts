/**
 * Issue 11: the layers of src/ point one way and have no import cycles, as
 * .dependency-cruiser.cjs states them. Run through dependency-cruiser's API
 * (no network, no build): about 2 s for src/ on the 2-core machine.
 */
import type { ICruiseResult } from 'dependency-cruiser';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp.js';
import { cruiseWith, describeViolation, root, SRC_RULES, writeTree } from './cruise.js';

const cruiseSrc = (baseDir: string): Promise<ICruiseResult> => cruiseWith(SRC_RULES, baseDir);

describe('the layers of src/', () => {
  it('point one way (git <- mirror, projects <- services <- schema <- app) with no import cycle', async () => {
    const result = await cruiseSrc(root);
    // Not vacuous: every layer was read and every local import resolved (the rule "resolvable" says which did not).
    const cruised = result.modules.map((m) => m.source);
    for (const layer of ['src/git/', 'src/mirror/', 'src/projects/', 'src/services/', 'src/schema/', 'src/app.ts']) {
      expect(cruised.some((source) => source.startsWith(layer)), `${layer} was cruised`).toBe(true);
    }
    expect(result.summary.totalDependenciesCruised).toBeGreaterThan(300);
    const violations = result.summary.violations.map(describeViolation);
    expect(violations, `layer violations (see .dependency-cruiser.cjs):\n${violations.join('\n')}`).toEqual([]);
  });

  it('fail on each kind of violation, naming the rule and the import', async () => {
    // A small src/ with one offence per rule, beside imports that are allowed.
    const dir = tempDir('em-layers-');
    const files: Record<string, string> = {
      'src/errors.ts': 'export const e = 1;\n',
      'src/ids.ts': "import './git/run.js';\nimport '../src/schema/session.js';\nexport const i = 1;\n",
      'src/git/run.ts': "import '../errors.js';\nimport '../services/rules.js';\nexport const r = 1;\n",
      'src/mirror/index.ts': "import './worker.js';\nexport const m = 1;\n",
      'src/mirror/worker.ts': "import './rebuild.js';\nimport '../git/run.js';\nexport type W = number;\n",
      'src/mirror/rebuild.ts': "import type { W } from './worker.js';\nimport '../projects/committer.js';\nexport const b = 1;\n",
      'src/projects/committer.ts': "import '../mirror/index.js';\nexport const c = 1;\n",
      'src/importers/files.ts': "import '../ids.js';\nimport '../mirror/index.js';\nexport const f = 1;\n",
      'src/services/sessions.ts': "import '../importers/files.js';\nexport const n = 1;\n",
      // A user's repo: projects/ may import its git, services/ and git/index.ts may not.
      'src/projects/restore.ts': "import '../git/project-plumbing.js';\nexport const p = 1;\n",
      'src/git/project-plumbing.ts': "import './run.js';\nexport const g = 1;\n",
      'src/git/index.ts': "import './project-plumbing.js';\nexport const x = 1;\n",
      'src/services/restore.ts': "import '../projects/restore.js';\nimport '../git/project-plumbing.js';\nexport const s = 1;\n",
      'src/services/rules.ts': "import '../mirror/index.js';\nimport '../mirror/worker.js';\nimport '../schema/session.js';\nexport const s = 1;\n",
      'src/services/sessions/turns.ts': "import '../rules.js';\nimport '../replay/views.js';\nexport const t = 1;\n",
      'src/services/replay/views.ts': "import '../sessions/turns.js';\nexport const v = 1;\n",
      'src/schema/session.ts': "import '../services/rules.js';\nimport '../mirror/index.js';\nimport '../app.js';\nexport const q = 1;\n",
      'src/app.ts': "import './schema/session.js';\nimport './mirror/worker.js';\nimport './missing.js';\nexport const a = 1;\n",
    };
    writeTree(dir, files);
    const result = await cruiseSrc(dir);
    const found = result.summary.violations.filter((v) => !v.cycle?.length).map(describeViolation).sort();
    expect(found).toEqual(
      [
        'api-sees-one-mirror-face: src/services/rules.ts -> src/mirror/worker.ts',
        'git-is-the-bottom: src/git/run.ts -> src/services/rules.ts',
        'importers-are-leaves: src/importers/files.ts -> src/mirror/index.ts',
        'importers-for-imports-only: src/services/sessions.ts -> src/importers/files.ts',
        'leaves-stay-leaves: src/ids.ts -> src/schema/session.ts',
        'mirror-below-services: src/mirror/rebuild.ts -> src/projects/committer.ts',
        'only-projects-open-a-user-repo: src/git/index.ts -> src/git/project-plumbing.ts',
        'projects-below-services: src/projects/committer.ts -> src/mirror/index.ts',
        'resolvable: src/app.ts -> ./missing.js',
        'schema-below-app: src/schema/session.ts -> src/app.ts',
        'services-below-schema: src/services/rules.ts -> src/schema/session.ts',
        'services-never-import-git-project: src/services/restore.ts -> src/git/project-plumbing.ts',
        'sessions-base-of-services: src/services/sessions/turns.ts -> src/services/replay/views.ts',
      ].sort(),
    );
    // An upward import closes a cycle with the downward ones, so there are several; two the fixture makes on purpose:
    // a cycle through a type-only import (rebuild -> worker is `import type`), and two layers importing each other.
    const cycles = result.summary.violations.filter((v) => v.rule.name === 'no-circular').map(describeViolation);
    expect(cycles).toContain('no-circular: src/mirror/rebuild.ts -> src/mirror/worker.ts -> src/mirror/rebuild.ts');
    expect(cycles).toContain('no-circular: src/schema/session.ts -> src/services/rules.ts -> src/schema/session.ts');
  });
});
