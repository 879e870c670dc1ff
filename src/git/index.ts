/**
 * The git layer: the only place git is spawned, through the runner (run.ts)
 * or, for the user's porcelain operations in a project, simple-git
 * (project-porcelain.ts); README.md says which path runs what, and why.
 * A user's repo (project-repo.ts, project-plumbing.ts, project-porcelain.ts, project-tree.ts)
 * is not exported here: src/projects/ imports those files itself, and is the
 * only layer that may (.dependency-cruiser.cjs, services-never-import-git-project).
 */
export * from './errors.js';
export { gitEnv, gitBinary, hardenEnv, runGit, runGitBuffer, startGit, onGitSpawn, DEFAULT_GIT_TIMEOUT_MS, PER_CALL_CONFIG } from './run.js';
export type { RunGitOptions, GitResult, GitSpawnEvent, StreamingGit } from './run.js';
export {
  isValidBranchName,
  assertBranchName,
  isShaPrefix,
  isFullSha,
  assertSha,
  assertFullSha,
  EMPTY_TREE_SHA1,
} from './refs.js';
export type { Identity, RepoFile } from './commit-input.js';
export { assertRepoPath } from './commit-input.js';
export { GitRepo } from './git-repo.js';
export { DIFF_STATUSES } from './parse.js';
export type { GitDirs, GitRepoOptions, HeadState, LogOptions, CommitInfo, FileDiff, TreeFile } from './git-repo.js';
export { SessionRepo, SESSION_REPO_CONFIG } from './session-repo.js';
export type { SessionRepoOptions, CommitTurnSpec } from './session-repo.js';
export { fastImport, fastImportMark } from './fast-import.js';
export type { FastImportCommit, FastImportOptions, FastImportResult } from './fast-import.js';
