/**
 * The contract's enums. The database stores each value under its GraphQL name.
 */
import type { AUTO_COMMIT_STATES } from '../projects/repo-config.js';
import { builder } from './builder.js';

export const RoleEnum = builder.enumType('Role', { values: ['USER', 'ASSISTANT', 'TOOL', 'SYSTEM'] as const });

export const MirrorStateEnum = builder.enumType('MirrorState', {
  values: {
    PENDING: { description: 'The turn is in the database; its git commit has not landed yet.' },
    COMMITTED: {},
    FAILED: { description: 'Mirroring failed and will be retried; see MirrorStatus.lastError.' },
  } as const,
});

export const ProjectStatusEnum = builder.enumType('ProjectStatus', { values: ['ACTIVE', 'PAUSED', 'DONE'] as const });

export type RoleValue = 'USER' | 'ASSISTANT' | 'TOOL' | 'SYSTEM';
export type MirrorStateValue = 'PENDING' | 'COMMITTED' | 'FAILED';
export type ProjectStatusValue = 'ACTIVE' | 'PAUSED' | 'DONE';

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
  } satisfies Record<AutoCommitStateValue, { description: string }>,
});

export type AutoCommitStateValue = (typeof AUTO_COMMIT_STATES)[number];
