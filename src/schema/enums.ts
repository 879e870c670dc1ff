/**
 * The contract's enums. Those the database stores are its Prisma enums
 * (prisma/schema.prisma): the GraphQL enum is built from the generated
 * object, so the column, the TypeScript type and the GraphQL values are one list.
 */
import { MirrorState, ProjectStatus, Role } from '../generated/prisma/enums.js';
import type { AutoCommitState } from '../projects/repo-config.js';
import { builder } from './builder.js';

export const RoleEnum = builder.enumType(Role, { name: 'Role' });

export const MirrorStateEnum = builder.enumType(MirrorState, {
  name: 'MirrorState',
  values: {
    PENDING: { description: 'The turn is in the database; its git commit has not landed yet.' },
    FAILED: { description: 'Mirroring failed and will be retried; see MirrorStatus.lastError.' },
  },
});

export const ProjectStatusEnum = builder.enumType(ProjectStatus, { name: 'ProjectStatus' });

// Not stored: read from the repo and its config on every request (src/projects/repo-config.ts holds the list).
export const ProjectAutoCommitStateEnum = builder.enumType('ProjectAutoCommitState', {
  values: {
    ENABLED: { description: "The agent's edits are committed at the end of each turn." },
    TRUSTED: {
      description: "The repo's config defines filter drivers and the user trusted them (updateProject trustRepoConfig: true): they run on the agent's git add.",
    },
    DISABLED_UNSAFE_CONFIG: {
      description:
        "The repo's config defines filter drivers (programs git runs on add) the user has not trusted, or they changed since: nothing is committed, turns end FAILED with the reason.",
    },
    UNAVAILABLE: { description: 'The working directory or its git directory cannot be used now (see message): nothing is read or written there.' },
  } satisfies Record<AutoCommitState, { description: string }>,
});
