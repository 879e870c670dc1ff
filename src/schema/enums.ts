/**
 * The contract's enums. The database stores each value under its GraphQL name.
 */
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
