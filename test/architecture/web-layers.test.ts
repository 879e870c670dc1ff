/**
 * Issue 24: the web UI's layers (web/src) point one way, as web/.dependency-cruiser.cjs states
 * them: lib/ <- features/ <- app/, no feature importing another, no import cycle. Run through
 * dependency-cruiser's API with web/tsconfig.json (.tsx, JSX), like layers.test.ts for src/.
 */
import type { ICruiseResult } from 'dependency-cruiser';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp.js';
import { cruiseWith, describeViolation, root, WEB_RULES, writeTree } from './cruise.js';

const cruiseWebSrc = (baseDir: string): Promise<ICruiseResult> => cruiseWith(WEB_RULES, baseDir);

describe('the layers of web/src', () => {
  it('point one way (lib <- features <- app), no feature importing another, with no import cycle', async () => {
    const result = await cruiseWebSrc(root);
    // Not vacuous: every layer was read, .tsx included, and every local import resolved (the rule "web-resolvable" says which did not).
    const cruised = result.modules.map((m) => m.source);
    for (const module of ['web/src/main.tsx', 'web/src/app/App.tsx', 'web/src/lib/client.ts', 'web/src/lib/Link.tsx', 'web/src/features/replay/SessionPage.tsx']) {
      expect(cruised, `${module} was cruised`).toContain(module);
    }
    for (const feature of ['branches', 'projects', 'replay', 'sessions']) {
      expect(cruised.some((source) => source.startsWith(`web/src/features/${feature}/`)), `features/${feature} was cruised`).toBe(true);
    }
    const app = result.modules.find((m) => m.source === 'web/src/app/App.tsx');
    expect(app?.dependencies.map((d) => d.resolved)).toContain('web/src/features/branches/BranchesPanel.tsx');
    expect(result.summary.totalDependenciesCruised).toBeGreaterThan(100);
    const violations = result.summary.violations.map(describeViolation);
    expect(violations, `web layer violations (see web/.dependency-cruiser.cjs):\n${violations.join('\n')}`).toEqual([]);
  });

  it('fail on each kind of violation, naming the rule and the import', async () => {
    // A small web/src with one offence per rule, beside imports that are allowed.
    const dir = tempDir('em-web-layers-');
    const files: Record<string, string> = {
      'web/src/main.tsx': "import { App } from './app/App';\nexport const root = <App />;\n",
      'web/src/app/App.tsx':
        "import { Page } from '../features/a/Page';\nimport { Panel } from '../features/b/Panel';\nimport './missing';\nexport const App = () => <Page Panel={Panel} />;\n",
      'web/src/lib/Link.tsx': "import { navigate } from './router';\nexport const Link = () => <a onClick={() => navigate()} />;\n",
      'web/src/lib/router.ts': "import '../features/b/Panel';\nexport const navigate = () => {};\n",
      'web/src/lib/client.ts': "import type { Token } from './token';\nexport const client = (t: Token) => t;\n",
      'web/src/lib/token.ts': "import { client } from './client';\nexport type Token = string;\nexport const token = client('t');\n",
      'web/src/features/a/Page.tsx':
        "import { Link } from '../../lib/Link';\nimport { steps } from './steps';\nimport '../b/Panel';\nimport '../../app/App';\nexport const Page = (p: { Panel: () => null }) => <Link key={steps} {...p} />;\n",
      'web/src/features/a/steps.ts': 'export const steps = 1;\n',
      'web/src/features/b/Panel.tsx': "import { client } from '../../lib/client';\nexport const Panel = () => null;\nclient('b');\n",
    };
    writeTree(dir, files);
    const result = await cruiseWebSrc(dir);
    const found = result.summary.violations.filter((v) => !v.cycle?.length).map(describeViolation).sort();
    expect(found).toEqual(
      [
        'web-features-apart: web/src/features/a/Page.tsx -> web/src/features/b/Panel.tsx',
        'web-features-below-app: web/src/features/a/Page.tsx -> web/src/app/App.tsx',
        'web-lib-below-features: web/src/lib/router.ts -> web/src/features/b/Panel.tsx',
        'web-resolvable: web/src/app/App.tsx -> ./missing',
      ].sort(),
    );
    // The feature importing app/ closes a cycle with app/ importing it; the other is lib/'s own, through a type-only import.
    const cycles = result.summary.violations.filter((v) => v.rule.name === 'web-no-circular').map(describeViolation);
    expect(cycles).toContain('web-no-circular: web/src/lib/client.ts -> web/src/lib/token.ts -> web/src/lib/client.ts');
    expect(cycles).toContain('web-no-circular: web/src/app/App.tsx -> web/src/features/a/Page.tsx -> web/src/app/App.tsx');
  });
});
