import { DISK_WARN_AT as WARN_AT, type DiskUsage as DiskUsageShape } from '../mirror/index.js';
import { builder } from './builder.js';

const DiskUsage = builder.objectRef<DiskUsageShape>('DiskUsage').implement({
  description: "The data dir's size against its disk budget (serve --max-disk), as last measured (at start-up, then every 10 minutes).",
  fields: (t) => ({
    usedBytes: t.float({ description: 'Bytes on disk of the data dir: database, session repos, archives.', resolve: (u) => u.usedBytes }),
    budgetBytes: t.float({ resolve: (u) => u.budgetBytes }),
    warning: t.boolean({ description: `True at ${WARN_AT * 100}% of the budget or more.`, resolve: (u) => u.warning }),
    checkedAt: t.field({ type: 'DateTime', resolve: (u) => u.checkedAt }),
    archived: t.int({ description: 'Sessions the last measure archived to fit the budget (the idle longest, none with a turn in the last 7 days).', resolve: (u) => u.archived }),
  }),
});

builder.queryFields((t) => ({
  diskUsage: t.field({
    type: DiskUsage,
    nullable: true,
    description: 'The data dir against its disk budget; null when the server has none (no --max-disk) or has not measured yet.',
    resolve: (_root, _args, ctx) => ctx.deps.diskUsage?.() ?? null,
  }),
}));
