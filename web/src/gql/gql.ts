/* eslint-disable */
import * as types from './graphql.js';
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';

/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "\n  query BranchesPanelGraph($sessionId: String!, $first: Int!) {\n    session(sessionId: $sessionId) {\n      id\n      currentBranch\n      branches {\n        name\n        kind\n        isCurrent\n        head {\n          sha\n          headline\n          turn {\n            number\n          }\n        }\n        forkPoint {\n          sha\n          headline\n          turn {\n            number\n            branch\n          }\n        }\n      }\n      timeline(all: true, first: $first) {\n        edges {\n          node {\n            sha\n            headline\n            parentShas\n          }\n        }\n      }\n    }\n  }\n": typeof types.BranchesPanelGraphDocument,
    "\n  query BranchesPanelLane($sessionId: String!, $branch: String!, $first: Int!) {\n    session(sessionId: $sessionId) {\n      id\n      timeline(branch: $branch, first: $first) {\n        edges {\n          node {\n            sha\n            headline\n          }\n        }\n      }\n    }\n  }\n": typeof types.BranchesPanelLaneDocument,
    "\n  subscription BranchesPanelEvents($sessionId: String!) {\n    timeline(sessionId: $sessionId) {\n      kind\n      branch\n    }\n  }\n": typeof types.BranchesPanelEventsDocument,
    "\n  subscription AnyDirtyTreeWarning {\n    dirtyTreeWarning {\n      at\n      message\n      dirtyPaths\n      reason\n      turnNumber\n      project {\n        projectId\n        name\n      }\n      session {\n        sessionId\n        title\n      }\n    }\n  }\n": typeof types.AnyDirtyTreeWarningDocument,
    "\n  mutation CreateProjectFromUi($input: CreateProjectInput!) {\n    createProject(input: $input) {\n      id\n      projectId\n      name\n    }\n  }\n": typeof types.CreateProjectFromUiDocument,
    "\n  mutation AddSessionToProjectFromUi($input: AddSessionToProjectInput!) {\n    addSessionToProject(input: $input) {\n      id\n      sessionId\n      project {\n        projectId\n      }\n    }\n  }\n": typeof types.AddSessionToProjectFromUiDocument,
    "\n  query NewProjectCurrentSession($sessionId: String!) {\n    session(sessionId: $sessionId) {\n      id\n      sessionId\n      title\n      project {\n        projectId\n        name\n      }\n    }\n  }\n": typeof types.NewProjectCurrentSessionDocument,
    "\n  query ProjectHistory($projectId: String!, $first: Int!, $after: String) {\n    project(projectId: $projectId) {\n      id\n      history(first: $first, after: $after) {\n        totalCount\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n        edges {\n          node {\n            sha\n            shortSha\n            headline\n            message\n            author {\n              name\n              email\n              date\n            }\n            committer {\n              name\n              email\n            }\n          }\n        }\n      }\n    }\n  }\n": typeof types.ProjectHistoryDocument,
    "\n  query ProjectPage($projectId: String!) {\n    project(projectId: $projectId) {\n      id\n      projectId\n      name\n      description\n      workdir\n      status\n      createdAt\n      autoCommit {\n        state\n        message\n        unsafeKeys\n      }\n      needsInitialCommit\n      workingTree {\n        isRepo\n        clean\n        branch\n        dirtyPaths\n      }\n      sessions(first: 50) {\n        totalCount\n        edges {\n          node {\n            id\n            sessionId\n            title\n          }\n        }\n      }\n    }\n  }\n": typeof types.ProjectPageDocument,
    "\n  subscription ProjectPageCommitted($projectId: String!) {\n    projectCommitted(projectId: $projectId) {\n      turnNumber\n    }\n  }\n": typeof types.ProjectPageCommittedDocument,
    "\n  subscription ProjectPageWarning($projectId: String!) {\n    dirtyTreeWarning(projectId: $projectId) {\n      turnNumber\n    }\n  }\n": typeof types.ProjectPageWarningDocument,
    "\n  mutation UpdateProjectStatus($input: UpdateProjectInput!) {\n    updateProject(input: $input) {\n      id\n      status\n    }\n  }\n": typeof types.UpdateProjectStatusDocument,
    "\n  query ProjectsNav($first: Int!) {\n    projects(first: $first) {\n      totalCount\n      edges {\n        node {\n          id\n          projectId\n          name\n          status\n          sessions(first: 0) {\n            totalCount\n          }\n        }\n      }\n    }\n  }\n": typeof types.ProjectsNavDocument,
    "\n  query ProjectSessionTurns($sessionId: String!, $first: Int!) {\n    session(sessionId: $sessionId) {\n      id\n      sessionId\n      currentBranch\n      turns(first: $first) {\n        totalCount\n        edges {\n          cursor\n          node {\n            number\n            open\n            userMessage {\n              content\n            }\n            projectCommit {\n              result\n              message\n              reason\n              dirtyPaths\n              paths\n            }\n          }\n        }\n      }\n    }\n  }\n": typeof types.ProjectSessionTurnsDocument,
    "\n  query ProjectSnapshotApplied($sessionId: String!, $after: String) {\n    session(sessionId: $sessionId) {\n      id\n      turns(after: $after, first: 1) {\n        edges {\n          node {\n            number\n            projectCommit {\n              snapshotApplied\n            }\n          }\n        }\n      }\n    }\n  }\n": typeof types.ProjectSnapshotAppliedDocument,
    "\n  mutation ApplyTurnSnapshotFromUi($input: ApplyTurnSnapshotInput!) {\n    applyTurnSnapshot(input: $input) {\n      result\n      message\n      paths\n    }\n  }\n": typeof types.ApplyTurnSnapshotFromUiDocument,
    "\n  mutation RestoreProjectFilesFromUi($input: RestoreProjectFilesInput!) {\n    restoreProjectFiles(input: $input) {\n      result\n      message\n      paths\n    }\n  }\n": typeof types.RestoreProjectFilesFromUiDocument,
    "\n  query JoinableProjects {\n    projects(first: 100) {\n      edges {\n        node {\n          id\n          projectId\n          name\n          workdir\n        }\n      }\n    }\n  }\n": typeof types.JoinableProjectsDocument,
    "\n  mutation JoinProject($input: AddSessionToProjectInput!) {\n    addSessionToProject(input: $input) {\n      id\n      project {\n        id\n        projectId\n        name\n      }\n    }\n  }\n": typeof types.JoinProjectDocument,
    "\n  fragment SessionViewFields on Session {\n    id\n    sessionId\n    title\n    currentBranch\n    detached\n    project {\n      id\n      projectId\n      name\n    }\n    head {\n      sha\n      parentShas\n      headline\n      turn {\n        number\n        branch\n      }\n    }\n    turns(first: 0) {\n      totalCount\n    }\n    agentId\n    source\n    recording\n    openTurn {\n      number\n    }\n  }\n": typeof types.SessionViewFieldsFragmentDoc,
    "\n  query SessionPage($sessionId: String!) {\n    session(sessionId: $sessionId) {\n      ...SessionViewFields\n    }\n  }\n": typeof types.SessionPageDocument,
    "\n  fragment ViewedCommitFields on Commit {\n    sha\n    parentShas\n    headline\n    turn {\n      number\n      branch\n    }\n  }\n": typeof types.ViewedCommitFieldsFragmentDoc,
    "\n  query ReplayViewed($sessionId: String!, $branch: String!, $sha: String!, $hasSha: Boolean!) {\n    session(sessionId: $sessionId) {\n      id\n      turns(branch: $branch, first: 0) {\n        totalCount\n      }\n      branches {\n        name\n        head {\n          ...ViewedCommitFields\n        }\n      }\n      commit(sha: $sha) @include(if: $hasSha) {\n        ...ViewedCommitFields\n      }\n    }\n  }\n": typeof types.ReplayViewedDocument,
    "\n  query NextTurn($sessionId: String!, $branch: String!, $after: String!) {\n    session(sessionId: $sessionId) {\n      id\n      turns(branch: $branch, after: $after, first: 1) {\n        edges {\n          node {\n            number\n            commit {\n              sha\n              parentShas\n            }\n          }\n        }\n      }\n    }\n  }\n": typeof types.NextTurnDocument,
    "\n  query SessionMirror($sessionId: String!) {\n    session(sessionId: $sessionId) {\n      id\n      mirror {\n        inSync\n        pending\n        lastError\n        dagTurns\n        gitCommits\n      }\n    }\n  }\n": typeof types.SessionMirrorDocument,
    "\n  mutation ReplayCheckout($input: CheckoutInput!) {\n    checkout(input: $input) {\n      ...SessionViewFields\n    }\n  }\n": typeof types.ReplayCheckoutDocument,
    "\n  mutation ReplaySwitchBranch($input: SwitchBranchInput!) {\n    switchBranch(input: $input) {\n      ...SessionViewFields\n    }\n  }\n": typeof types.ReplaySwitchBranchDocument,
    "\n  subscription SessionTimelineEvents($sessionId: String!) {\n    timeline(sessionId: $sessionId) {\n      kind\n      branch\n    }\n  }\n": typeof types.SessionTimelineEventsDocument,
    "\n  subscription SessionMirrorFailed($sessionId: String!) {\n    mirrorFailed(sessionId: $sessionId) {\n      error\n      turnNumber\n      willRetry\n    }\n  }\n": typeof types.SessionMirrorFailedDocument,
    "\n  fragment ReplayMessageFields on Message {\n    id\n    messageId\n    seq\n    role\n    content\n    toolName\n    toolCallId\n    createdAt\n    caller {\n      messageId\n    }\n    metadata\n    redactions {\n      kind\n      count\n    }\n  }\n": typeof types.ReplayMessageFieldsFragmentDoc,
    "\n  query ReplayConversation($sessionId: String!, $branch: String!, $after: String, $first: Int!) {\n    session(sessionId: $sessionId) {\n      id\n      turns(branch: $branch, after: $after, first: $first) {\n        edges {\n          node {\n            number\n            commit {\n              sha\n            }\n            messages {\n              ...ReplayMessageFields\n            }\n          }\n        }\n      }\n    }\n  }\n": typeof types.ReplayConversationDocument,
    "\n  query ReplayTimelinePage($sessionId: String!, $branch: String!, $after: String, $first: Int!) {\n    session(sessionId: $sessionId) {\n      id\n      timeline(branch: $branch, after: $after, first: $first) {\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n        edges {\n          node {\n            sha\n            headline\n            turn {\n              number\n            }\n          }\n        }\n      }\n    }\n  }\n": typeof types.ReplayTimelinePageDocument,
    "\n  query ReplayCommitChanges($sessionId: String!, $sha: String!) {\n    session(sessionId: $sessionId) {\n      id\n      commit(sha: $sha) {\n        sha\n        diff {\n          additions\n          deletions\n          files {\n            path\n            oldPath\n            status\n            additions\n            deletions\n          }\n        }\n      }\n    }\n  }\n": typeof types.ReplayCommitChangesDocument,
    "\n  query ReplayCommitPatches($sessionId: String!, $sha: String!) {\n    session(sessionId: $sessionId) {\n      id\n      commit(sha: $sha) {\n        sha\n        diff {\n          files {\n            path\n            patch\n            truncated\n          }\n        }\n      }\n    }\n  }\n": typeof types.ReplayCommitPatchesDocument,
    "\n  fragment CodeDiffFields on Commit {\n    sha\n    diff {\n      additions\n      deletions\n      files {\n        path\n        oldPath\n        status\n        additions\n        deletions\n        patch\n        truncated\n      }\n    }\n  }\n": typeof types.CodeDiffFieldsFragmentDoc,
    "\n  query ReplayCodeChanges($sessionId: String!, $sha: String!) {\n    session(sessionId: $sessionId) {\n      id\n      commit(sha: $sha) {\n        sha\n        turn {\n          number\n          projectCommit {\n            result\n            reason\n            message\n            dirtyPaths\n            paths\n            commit {\n              ...CodeDiffFields\n            }\n            snapshot {\n              ...CodeDiffFields\n            }\n          }\n        }\n      }\n    }\n  }\n": typeof types.ReplayCodeChangesDocument,
    "\n  subscription ReplayCodeCommitted($projectId: String!) {\n    projectCommitted(projectId: $projectId) {\n      turnNumber\n    }\n  }\n": typeof types.ReplayCodeCommittedDocument,
    "\n  subscription ReplayCodeSkipped($projectId: String!) {\n    dirtyTreeWarning(projectId: $projectId) {\n      turnNumber\n    }\n  }\n": typeof types.ReplayCodeSkippedDocument,
    "\n  query ReplayOpenTurn($sessionId: String!) {\n    session(sessionId: $sessionId) {\n      id\n      openTurn {\n        number\n        messages {\n          ...ReplayMessageFields\n        }\n      }\n    }\n  }\n": typeof types.ReplayOpenTurnDocument,
    "\n  subscription SessionTurnUpdates($sessionId: String!) {\n    turnUpdated(sessionId: $sessionId) {\n      turn {\n        number\n        open\n      }\n      messages {\n        ...ReplayMessageFields\n      }\n      closed\n    }\n  }\n": typeof types.SessionTurnUpdatesDocument,
    "\n  query SessionsNav($first: Int!) {\n    sessions(first: $first) {\n      totalCount\n      edges {\n        node {\n          id\n          sessionId\n          title\n        }\n      }\n    }\n  }\n": typeof types.SessionsNavDocument,
    "\n  subscription AnyTurnCommitted {\n    turnCommitted {\n      session {\n        sessionId\n      }\n    }\n  }\n": typeof types.AnyTurnCommittedDocument,
};
const documents: Documents = {
    "\n  query BranchesPanelGraph($sessionId: String!, $first: Int!) {\n    session(sessionId: $sessionId) {\n      id\n      currentBranch\n      branches {\n        name\n        kind\n        isCurrent\n        head {\n          sha\n          headline\n          turn {\n            number\n          }\n        }\n        forkPoint {\n          sha\n          headline\n          turn {\n            number\n            branch\n          }\n        }\n      }\n      timeline(all: true, first: $first) {\n        edges {\n          node {\n            sha\n            headline\n            parentShas\n          }\n        }\n      }\n    }\n  }\n": types.BranchesPanelGraphDocument,
    "\n  query BranchesPanelLane($sessionId: String!, $branch: String!, $first: Int!) {\n    session(sessionId: $sessionId) {\n      id\n      timeline(branch: $branch, first: $first) {\n        edges {\n          node {\n            sha\n            headline\n          }\n        }\n      }\n    }\n  }\n": types.BranchesPanelLaneDocument,
    "\n  subscription BranchesPanelEvents($sessionId: String!) {\n    timeline(sessionId: $sessionId) {\n      kind\n      branch\n    }\n  }\n": types.BranchesPanelEventsDocument,
    "\n  subscription AnyDirtyTreeWarning {\n    dirtyTreeWarning {\n      at\n      message\n      dirtyPaths\n      reason\n      turnNumber\n      project {\n        projectId\n        name\n      }\n      session {\n        sessionId\n        title\n      }\n    }\n  }\n": types.AnyDirtyTreeWarningDocument,
    "\n  mutation CreateProjectFromUi($input: CreateProjectInput!) {\n    createProject(input: $input) {\n      id\n      projectId\n      name\n    }\n  }\n": types.CreateProjectFromUiDocument,
    "\n  mutation AddSessionToProjectFromUi($input: AddSessionToProjectInput!) {\n    addSessionToProject(input: $input) {\n      id\n      sessionId\n      project {\n        projectId\n      }\n    }\n  }\n": types.AddSessionToProjectFromUiDocument,
    "\n  query NewProjectCurrentSession($sessionId: String!) {\n    session(sessionId: $sessionId) {\n      id\n      sessionId\n      title\n      project {\n        projectId\n        name\n      }\n    }\n  }\n": types.NewProjectCurrentSessionDocument,
    "\n  query ProjectHistory($projectId: String!, $first: Int!, $after: String) {\n    project(projectId: $projectId) {\n      id\n      history(first: $first, after: $after) {\n        totalCount\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n        edges {\n          node {\n            sha\n            shortSha\n            headline\n            message\n            author {\n              name\n              email\n              date\n            }\n            committer {\n              name\n              email\n            }\n          }\n        }\n      }\n    }\n  }\n": types.ProjectHistoryDocument,
    "\n  query ProjectPage($projectId: String!) {\n    project(projectId: $projectId) {\n      id\n      projectId\n      name\n      description\n      workdir\n      status\n      createdAt\n      autoCommit {\n        state\n        message\n        unsafeKeys\n      }\n      needsInitialCommit\n      workingTree {\n        isRepo\n        clean\n        branch\n        dirtyPaths\n      }\n      sessions(first: 50) {\n        totalCount\n        edges {\n          node {\n            id\n            sessionId\n            title\n          }\n        }\n      }\n    }\n  }\n": types.ProjectPageDocument,
    "\n  subscription ProjectPageCommitted($projectId: String!) {\n    projectCommitted(projectId: $projectId) {\n      turnNumber\n    }\n  }\n": types.ProjectPageCommittedDocument,
    "\n  subscription ProjectPageWarning($projectId: String!) {\n    dirtyTreeWarning(projectId: $projectId) {\n      turnNumber\n    }\n  }\n": types.ProjectPageWarningDocument,
    "\n  mutation UpdateProjectStatus($input: UpdateProjectInput!) {\n    updateProject(input: $input) {\n      id\n      status\n    }\n  }\n": types.UpdateProjectStatusDocument,
    "\n  query ProjectsNav($first: Int!) {\n    projects(first: $first) {\n      totalCount\n      edges {\n        node {\n          id\n          projectId\n          name\n          status\n          sessions(first: 0) {\n            totalCount\n          }\n        }\n      }\n    }\n  }\n": types.ProjectsNavDocument,
    "\n  query ProjectSessionTurns($sessionId: String!, $first: Int!) {\n    session(sessionId: $sessionId) {\n      id\n      sessionId\n      currentBranch\n      turns(first: $first) {\n        totalCount\n        edges {\n          cursor\n          node {\n            number\n            open\n            userMessage {\n              content\n            }\n            projectCommit {\n              result\n              message\n              reason\n              dirtyPaths\n              paths\n            }\n          }\n        }\n      }\n    }\n  }\n": types.ProjectSessionTurnsDocument,
    "\n  query ProjectSnapshotApplied($sessionId: String!, $after: String) {\n    session(sessionId: $sessionId) {\n      id\n      turns(after: $after, first: 1) {\n        edges {\n          node {\n            number\n            projectCommit {\n              snapshotApplied\n            }\n          }\n        }\n      }\n    }\n  }\n": types.ProjectSnapshotAppliedDocument,
    "\n  mutation ApplyTurnSnapshotFromUi($input: ApplyTurnSnapshotInput!) {\n    applyTurnSnapshot(input: $input) {\n      result\n      message\n      paths\n    }\n  }\n": types.ApplyTurnSnapshotFromUiDocument,
    "\n  mutation RestoreProjectFilesFromUi($input: RestoreProjectFilesInput!) {\n    restoreProjectFiles(input: $input) {\n      result\n      message\n      paths\n    }\n  }\n": types.RestoreProjectFilesFromUiDocument,
    "\n  query JoinableProjects {\n    projects(first: 100) {\n      edges {\n        node {\n          id\n          projectId\n          name\n          workdir\n        }\n      }\n    }\n  }\n": types.JoinableProjectsDocument,
    "\n  mutation JoinProject($input: AddSessionToProjectInput!) {\n    addSessionToProject(input: $input) {\n      id\n      project {\n        id\n        projectId\n        name\n      }\n    }\n  }\n": types.JoinProjectDocument,
    "\n  fragment SessionViewFields on Session {\n    id\n    sessionId\n    title\n    currentBranch\n    detached\n    project {\n      id\n      projectId\n      name\n    }\n    head {\n      sha\n      parentShas\n      headline\n      turn {\n        number\n        branch\n      }\n    }\n    turns(first: 0) {\n      totalCount\n    }\n    agentId\n    source\n    recording\n    openTurn {\n      number\n    }\n  }\n": types.SessionViewFieldsFragmentDoc,
    "\n  query SessionPage($sessionId: String!) {\n    session(sessionId: $sessionId) {\n      ...SessionViewFields\n    }\n  }\n": types.SessionPageDocument,
    "\n  fragment ViewedCommitFields on Commit {\n    sha\n    parentShas\n    headline\n    turn {\n      number\n      branch\n    }\n  }\n": types.ViewedCommitFieldsFragmentDoc,
    "\n  query ReplayViewed($sessionId: String!, $branch: String!, $sha: String!, $hasSha: Boolean!) {\n    session(sessionId: $sessionId) {\n      id\n      turns(branch: $branch, first: 0) {\n        totalCount\n      }\n      branches {\n        name\n        head {\n          ...ViewedCommitFields\n        }\n      }\n      commit(sha: $sha) @include(if: $hasSha) {\n        ...ViewedCommitFields\n      }\n    }\n  }\n": types.ReplayViewedDocument,
    "\n  query NextTurn($sessionId: String!, $branch: String!, $after: String!) {\n    session(sessionId: $sessionId) {\n      id\n      turns(branch: $branch, after: $after, first: 1) {\n        edges {\n          node {\n            number\n            commit {\n              sha\n              parentShas\n            }\n          }\n        }\n      }\n    }\n  }\n": types.NextTurnDocument,
    "\n  query SessionMirror($sessionId: String!) {\n    session(sessionId: $sessionId) {\n      id\n      mirror {\n        inSync\n        pending\n        lastError\n        dagTurns\n        gitCommits\n      }\n    }\n  }\n": types.SessionMirrorDocument,
    "\n  mutation ReplayCheckout($input: CheckoutInput!) {\n    checkout(input: $input) {\n      ...SessionViewFields\n    }\n  }\n": types.ReplayCheckoutDocument,
    "\n  mutation ReplaySwitchBranch($input: SwitchBranchInput!) {\n    switchBranch(input: $input) {\n      ...SessionViewFields\n    }\n  }\n": types.ReplaySwitchBranchDocument,
    "\n  subscription SessionTimelineEvents($sessionId: String!) {\n    timeline(sessionId: $sessionId) {\n      kind\n      branch\n    }\n  }\n": types.SessionTimelineEventsDocument,
    "\n  subscription SessionMirrorFailed($sessionId: String!) {\n    mirrorFailed(sessionId: $sessionId) {\n      error\n      turnNumber\n      willRetry\n    }\n  }\n": types.SessionMirrorFailedDocument,
    "\n  fragment ReplayMessageFields on Message {\n    id\n    messageId\n    seq\n    role\n    content\n    toolName\n    toolCallId\n    createdAt\n    caller {\n      messageId\n    }\n    metadata\n    redactions {\n      kind\n      count\n    }\n  }\n": types.ReplayMessageFieldsFragmentDoc,
    "\n  query ReplayConversation($sessionId: String!, $branch: String!, $after: String, $first: Int!) {\n    session(sessionId: $sessionId) {\n      id\n      turns(branch: $branch, after: $after, first: $first) {\n        edges {\n          node {\n            number\n            commit {\n              sha\n            }\n            messages {\n              ...ReplayMessageFields\n            }\n          }\n        }\n      }\n    }\n  }\n": types.ReplayConversationDocument,
    "\n  query ReplayTimelinePage($sessionId: String!, $branch: String!, $after: String, $first: Int!) {\n    session(sessionId: $sessionId) {\n      id\n      timeline(branch: $branch, after: $after, first: $first) {\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n        edges {\n          node {\n            sha\n            headline\n            turn {\n              number\n            }\n          }\n        }\n      }\n    }\n  }\n": types.ReplayTimelinePageDocument,
    "\n  query ReplayCommitChanges($sessionId: String!, $sha: String!) {\n    session(sessionId: $sessionId) {\n      id\n      commit(sha: $sha) {\n        sha\n        diff {\n          additions\n          deletions\n          files {\n            path\n            oldPath\n            status\n            additions\n            deletions\n          }\n        }\n      }\n    }\n  }\n": types.ReplayCommitChangesDocument,
    "\n  query ReplayCommitPatches($sessionId: String!, $sha: String!) {\n    session(sessionId: $sessionId) {\n      id\n      commit(sha: $sha) {\n        sha\n        diff {\n          files {\n            path\n            patch\n            truncated\n          }\n        }\n      }\n    }\n  }\n": types.ReplayCommitPatchesDocument,
    "\n  fragment CodeDiffFields on Commit {\n    sha\n    diff {\n      additions\n      deletions\n      files {\n        path\n        oldPath\n        status\n        additions\n        deletions\n        patch\n        truncated\n      }\n    }\n  }\n": types.CodeDiffFieldsFragmentDoc,
    "\n  query ReplayCodeChanges($sessionId: String!, $sha: String!) {\n    session(sessionId: $sessionId) {\n      id\n      commit(sha: $sha) {\n        sha\n        turn {\n          number\n          projectCommit {\n            result\n            reason\n            message\n            dirtyPaths\n            paths\n            commit {\n              ...CodeDiffFields\n            }\n            snapshot {\n              ...CodeDiffFields\n            }\n          }\n        }\n      }\n    }\n  }\n": types.ReplayCodeChangesDocument,
    "\n  subscription ReplayCodeCommitted($projectId: String!) {\n    projectCommitted(projectId: $projectId) {\n      turnNumber\n    }\n  }\n": types.ReplayCodeCommittedDocument,
    "\n  subscription ReplayCodeSkipped($projectId: String!) {\n    dirtyTreeWarning(projectId: $projectId) {\n      turnNumber\n    }\n  }\n": types.ReplayCodeSkippedDocument,
    "\n  query ReplayOpenTurn($sessionId: String!) {\n    session(sessionId: $sessionId) {\n      id\n      openTurn {\n        number\n        messages {\n          ...ReplayMessageFields\n        }\n      }\n    }\n  }\n": types.ReplayOpenTurnDocument,
    "\n  subscription SessionTurnUpdates($sessionId: String!) {\n    turnUpdated(sessionId: $sessionId) {\n      turn {\n        number\n        open\n      }\n      messages {\n        ...ReplayMessageFields\n      }\n      closed\n    }\n  }\n": types.SessionTurnUpdatesDocument,
    "\n  query SessionsNav($first: Int!) {\n    sessions(first: $first) {\n      totalCount\n      edges {\n        node {\n          id\n          sessionId\n          title\n        }\n      }\n    }\n  }\n": types.SessionsNavDocument,
    "\n  subscription AnyTurnCommitted {\n    turnCommitted {\n      session {\n        sessionId\n      }\n    }\n  }\n": types.AnyTurnCommittedDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 *
 *
 * @example
 * ```ts
 * const query = graphql(`query GetUser($id: ID!) { user(id: $id) { name } }`);
 * ```
 *
 * The query argument is unknown!
 * Please regenerate the types.
 */
export function graphql(source: string): unknown;

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query BranchesPanelGraph($sessionId: String!, $first: Int!) {\n    session(sessionId: $sessionId) {\n      id\n      currentBranch\n      branches {\n        name\n        kind\n        isCurrent\n        head {\n          sha\n          headline\n          turn {\n            number\n          }\n        }\n        forkPoint {\n          sha\n          headline\n          turn {\n            number\n            branch\n          }\n        }\n      }\n      timeline(all: true, first: $first) {\n        edges {\n          node {\n            sha\n            headline\n            parentShas\n          }\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query BranchesPanelGraph($sessionId: String!, $first: Int!) {\n    session(sessionId: $sessionId) {\n      id\n      currentBranch\n      branches {\n        name\n        kind\n        isCurrent\n        head {\n          sha\n          headline\n          turn {\n            number\n          }\n        }\n        forkPoint {\n          sha\n          headline\n          turn {\n            number\n            branch\n          }\n        }\n      }\n      timeline(all: true, first: $first) {\n        edges {\n          node {\n            sha\n            headline\n            parentShas\n          }\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query BranchesPanelLane($sessionId: String!, $branch: String!, $first: Int!) {\n    session(sessionId: $sessionId) {\n      id\n      timeline(branch: $branch, first: $first) {\n        edges {\n          node {\n            sha\n            headline\n          }\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query BranchesPanelLane($sessionId: String!, $branch: String!, $first: Int!) {\n    session(sessionId: $sessionId) {\n      id\n      timeline(branch: $branch, first: $first) {\n        edges {\n          node {\n            sha\n            headline\n          }\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription BranchesPanelEvents($sessionId: String!) {\n    timeline(sessionId: $sessionId) {\n      kind\n      branch\n    }\n  }\n"): (typeof documents)["\n  subscription BranchesPanelEvents($sessionId: String!) {\n    timeline(sessionId: $sessionId) {\n      kind\n      branch\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription AnyDirtyTreeWarning {\n    dirtyTreeWarning {\n      at\n      message\n      dirtyPaths\n      reason\n      turnNumber\n      project {\n        projectId\n        name\n      }\n      session {\n        sessionId\n        title\n      }\n    }\n  }\n"): (typeof documents)["\n  subscription AnyDirtyTreeWarning {\n    dirtyTreeWarning {\n      at\n      message\n      dirtyPaths\n      reason\n      turnNumber\n      project {\n        projectId\n        name\n      }\n      session {\n        sessionId\n        title\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreateProjectFromUi($input: CreateProjectInput!) {\n    createProject(input: $input) {\n      id\n      projectId\n      name\n    }\n  }\n"): (typeof documents)["\n  mutation CreateProjectFromUi($input: CreateProjectInput!) {\n    createProject(input: $input) {\n      id\n      projectId\n      name\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation AddSessionToProjectFromUi($input: AddSessionToProjectInput!) {\n    addSessionToProject(input: $input) {\n      id\n      sessionId\n      project {\n        projectId\n      }\n    }\n  }\n"): (typeof documents)["\n  mutation AddSessionToProjectFromUi($input: AddSessionToProjectInput!) {\n    addSessionToProject(input: $input) {\n      id\n      sessionId\n      project {\n        projectId\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query NewProjectCurrentSession($sessionId: String!) {\n    session(sessionId: $sessionId) {\n      id\n      sessionId\n      title\n      project {\n        projectId\n        name\n      }\n    }\n  }\n"): (typeof documents)["\n  query NewProjectCurrentSession($sessionId: String!) {\n    session(sessionId: $sessionId) {\n      id\n      sessionId\n      title\n      project {\n        projectId\n        name\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ProjectHistory($projectId: String!, $first: Int!, $after: String) {\n    project(projectId: $projectId) {\n      id\n      history(first: $first, after: $after) {\n        totalCount\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n        edges {\n          node {\n            sha\n            shortSha\n            headline\n            message\n            author {\n              name\n              email\n              date\n            }\n            committer {\n              name\n              email\n            }\n          }\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query ProjectHistory($projectId: String!, $first: Int!, $after: String) {\n    project(projectId: $projectId) {\n      id\n      history(first: $first, after: $after) {\n        totalCount\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n        edges {\n          node {\n            sha\n            shortSha\n            headline\n            message\n            author {\n              name\n              email\n              date\n            }\n            committer {\n              name\n              email\n            }\n          }\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ProjectPage($projectId: String!) {\n    project(projectId: $projectId) {\n      id\n      projectId\n      name\n      description\n      workdir\n      status\n      createdAt\n      autoCommit {\n        state\n        message\n        unsafeKeys\n      }\n      needsInitialCommit\n      workingTree {\n        isRepo\n        clean\n        branch\n        dirtyPaths\n      }\n      sessions(first: 50) {\n        totalCount\n        edges {\n          node {\n            id\n            sessionId\n            title\n          }\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query ProjectPage($projectId: String!) {\n    project(projectId: $projectId) {\n      id\n      projectId\n      name\n      description\n      workdir\n      status\n      createdAt\n      autoCommit {\n        state\n        message\n        unsafeKeys\n      }\n      needsInitialCommit\n      workingTree {\n        isRepo\n        clean\n        branch\n        dirtyPaths\n      }\n      sessions(first: 50) {\n        totalCount\n        edges {\n          node {\n            id\n            sessionId\n            title\n          }\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription ProjectPageCommitted($projectId: String!) {\n    projectCommitted(projectId: $projectId) {\n      turnNumber\n    }\n  }\n"): (typeof documents)["\n  subscription ProjectPageCommitted($projectId: String!) {\n    projectCommitted(projectId: $projectId) {\n      turnNumber\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription ProjectPageWarning($projectId: String!) {\n    dirtyTreeWarning(projectId: $projectId) {\n      turnNumber\n    }\n  }\n"): (typeof documents)["\n  subscription ProjectPageWarning($projectId: String!) {\n    dirtyTreeWarning(projectId: $projectId) {\n      turnNumber\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation UpdateProjectStatus($input: UpdateProjectInput!) {\n    updateProject(input: $input) {\n      id\n      status\n    }\n  }\n"): (typeof documents)["\n  mutation UpdateProjectStatus($input: UpdateProjectInput!) {\n    updateProject(input: $input) {\n      id\n      status\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ProjectsNav($first: Int!) {\n    projects(first: $first) {\n      totalCount\n      edges {\n        node {\n          id\n          projectId\n          name\n          status\n          sessions(first: 0) {\n            totalCount\n          }\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query ProjectsNav($first: Int!) {\n    projects(first: $first) {\n      totalCount\n      edges {\n        node {\n          id\n          projectId\n          name\n          status\n          sessions(first: 0) {\n            totalCount\n          }\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ProjectSessionTurns($sessionId: String!, $first: Int!) {\n    session(sessionId: $sessionId) {\n      id\n      sessionId\n      currentBranch\n      turns(first: $first) {\n        totalCount\n        edges {\n          cursor\n          node {\n            number\n            open\n            userMessage {\n              content\n            }\n            projectCommit {\n              result\n              message\n              reason\n              dirtyPaths\n              paths\n            }\n          }\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query ProjectSessionTurns($sessionId: String!, $first: Int!) {\n    session(sessionId: $sessionId) {\n      id\n      sessionId\n      currentBranch\n      turns(first: $first) {\n        totalCount\n        edges {\n          cursor\n          node {\n            number\n            open\n            userMessage {\n              content\n            }\n            projectCommit {\n              result\n              message\n              reason\n              dirtyPaths\n              paths\n            }\n          }\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ProjectSnapshotApplied($sessionId: String!, $after: String) {\n    session(sessionId: $sessionId) {\n      id\n      turns(after: $after, first: 1) {\n        edges {\n          node {\n            number\n            projectCommit {\n              snapshotApplied\n            }\n          }\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query ProjectSnapshotApplied($sessionId: String!, $after: String) {\n    session(sessionId: $sessionId) {\n      id\n      turns(after: $after, first: 1) {\n        edges {\n          node {\n            number\n            projectCommit {\n              snapshotApplied\n            }\n          }\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ApplyTurnSnapshotFromUi($input: ApplyTurnSnapshotInput!) {\n    applyTurnSnapshot(input: $input) {\n      result\n      message\n      paths\n    }\n  }\n"): (typeof documents)["\n  mutation ApplyTurnSnapshotFromUi($input: ApplyTurnSnapshotInput!) {\n    applyTurnSnapshot(input: $input) {\n      result\n      message\n      paths\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RestoreProjectFilesFromUi($input: RestoreProjectFilesInput!) {\n    restoreProjectFiles(input: $input) {\n      result\n      message\n      paths\n    }\n  }\n"): (typeof documents)["\n  mutation RestoreProjectFilesFromUi($input: RestoreProjectFilesInput!) {\n    restoreProjectFiles(input: $input) {\n      result\n      message\n      paths\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query JoinableProjects {\n    projects(first: 100) {\n      edges {\n        node {\n          id\n          projectId\n          name\n          workdir\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query JoinableProjects {\n    projects(first: 100) {\n      edges {\n        node {\n          id\n          projectId\n          name\n          workdir\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation JoinProject($input: AddSessionToProjectInput!) {\n    addSessionToProject(input: $input) {\n      id\n      project {\n        id\n        projectId\n        name\n      }\n    }\n  }\n"): (typeof documents)["\n  mutation JoinProject($input: AddSessionToProjectInput!) {\n    addSessionToProject(input: $input) {\n      id\n      project {\n        id\n        projectId\n        name\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment SessionViewFields on Session {\n    id\n    sessionId\n    title\n    currentBranch\n    detached\n    project {\n      id\n      projectId\n      name\n    }\n    head {\n      sha\n      parentShas\n      headline\n      turn {\n        number\n        branch\n      }\n    }\n    turns(first: 0) {\n      totalCount\n    }\n    agentId\n    source\n    recording\n    openTurn {\n      number\n    }\n  }\n"): (typeof documents)["\n  fragment SessionViewFields on Session {\n    id\n    sessionId\n    title\n    currentBranch\n    detached\n    project {\n      id\n      projectId\n      name\n    }\n    head {\n      sha\n      parentShas\n      headline\n      turn {\n        number\n        branch\n      }\n    }\n    turns(first: 0) {\n      totalCount\n    }\n    agentId\n    source\n    recording\n    openTurn {\n      number\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query SessionPage($sessionId: String!) {\n    session(sessionId: $sessionId) {\n      ...SessionViewFields\n    }\n  }\n"): (typeof documents)["\n  query SessionPage($sessionId: String!) {\n    session(sessionId: $sessionId) {\n      ...SessionViewFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment ViewedCommitFields on Commit {\n    sha\n    parentShas\n    headline\n    turn {\n      number\n      branch\n    }\n  }\n"): (typeof documents)["\n  fragment ViewedCommitFields on Commit {\n    sha\n    parentShas\n    headline\n    turn {\n      number\n      branch\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ReplayViewed($sessionId: String!, $branch: String!, $sha: String!, $hasSha: Boolean!) {\n    session(sessionId: $sessionId) {\n      id\n      turns(branch: $branch, first: 0) {\n        totalCount\n      }\n      branches {\n        name\n        head {\n          ...ViewedCommitFields\n        }\n      }\n      commit(sha: $sha) @include(if: $hasSha) {\n        ...ViewedCommitFields\n      }\n    }\n  }\n"): (typeof documents)["\n  query ReplayViewed($sessionId: String!, $branch: String!, $sha: String!, $hasSha: Boolean!) {\n    session(sessionId: $sessionId) {\n      id\n      turns(branch: $branch, first: 0) {\n        totalCount\n      }\n      branches {\n        name\n        head {\n          ...ViewedCommitFields\n        }\n      }\n      commit(sha: $sha) @include(if: $hasSha) {\n        ...ViewedCommitFields\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query NextTurn($sessionId: String!, $branch: String!, $after: String!) {\n    session(sessionId: $sessionId) {\n      id\n      turns(branch: $branch, after: $after, first: 1) {\n        edges {\n          node {\n            number\n            commit {\n              sha\n              parentShas\n            }\n          }\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query NextTurn($sessionId: String!, $branch: String!, $after: String!) {\n    session(sessionId: $sessionId) {\n      id\n      turns(branch: $branch, after: $after, first: 1) {\n        edges {\n          node {\n            number\n            commit {\n              sha\n              parentShas\n            }\n          }\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query SessionMirror($sessionId: String!) {\n    session(sessionId: $sessionId) {\n      id\n      mirror {\n        inSync\n        pending\n        lastError\n        dagTurns\n        gitCommits\n      }\n    }\n  }\n"): (typeof documents)["\n  query SessionMirror($sessionId: String!) {\n    session(sessionId: $sessionId) {\n      id\n      mirror {\n        inSync\n        pending\n        lastError\n        dagTurns\n        gitCommits\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ReplayCheckout($input: CheckoutInput!) {\n    checkout(input: $input) {\n      ...SessionViewFields\n    }\n  }\n"): (typeof documents)["\n  mutation ReplayCheckout($input: CheckoutInput!) {\n    checkout(input: $input) {\n      ...SessionViewFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ReplaySwitchBranch($input: SwitchBranchInput!) {\n    switchBranch(input: $input) {\n      ...SessionViewFields\n    }\n  }\n"): (typeof documents)["\n  mutation ReplaySwitchBranch($input: SwitchBranchInput!) {\n    switchBranch(input: $input) {\n      ...SessionViewFields\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription SessionTimelineEvents($sessionId: String!) {\n    timeline(sessionId: $sessionId) {\n      kind\n      branch\n    }\n  }\n"): (typeof documents)["\n  subscription SessionTimelineEvents($sessionId: String!) {\n    timeline(sessionId: $sessionId) {\n      kind\n      branch\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription SessionMirrorFailed($sessionId: String!) {\n    mirrorFailed(sessionId: $sessionId) {\n      error\n      turnNumber\n      willRetry\n    }\n  }\n"): (typeof documents)["\n  subscription SessionMirrorFailed($sessionId: String!) {\n    mirrorFailed(sessionId: $sessionId) {\n      error\n      turnNumber\n      willRetry\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment ReplayMessageFields on Message {\n    id\n    messageId\n    seq\n    role\n    content\n    toolName\n    toolCallId\n    createdAt\n    caller {\n      messageId\n    }\n    metadata\n    redactions {\n      kind\n      count\n    }\n  }\n"): (typeof documents)["\n  fragment ReplayMessageFields on Message {\n    id\n    messageId\n    seq\n    role\n    content\n    toolName\n    toolCallId\n    createdAt\n    caller {\n      messageId\n    }\n    metadata\n    redactions {\n      kind\n      count\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ReplayConversation($sessionId: String!, $branch: String!, $after: String, $first: Int!) {\n    session(sessionId: $sessionId) {\n      id\n      turns(branch: $branch, after: $after, first: $first) {\n        edges {\n          node {\n            number\n            commit {\n              sha\n            }\n            messages {\n              ...ReplayMessageFields\n            }\n          }\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query ReplayConversation($sessionId: String!, $branch: String!, $after: String, $first: Int!) {\n    session(sessionId: $sessionId) {\n      id\n      turns(branch: $branch, after: $after, first: $first) {\n        edges {\n          node {\n            number\n            commit {\n              sha\n            }\n            messages {\n              ...ReplayMessageFields\n            }\n          }\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ReplayTimelinePage($sessionId: String!, $branch: String!, $after: String, $first: Int!) {\n    session(sessionId: $sessionId) {\n      id\n      timeline(branch: $branch, after: $after, first: $first) {\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n        edges {\n          node {\n            sha\n            headline\n            turn {\n              number\n            }\n          }\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query ReplayTimelinePage($sessionId: String!, $branch: String!, $after: String, $first: Int!) {\n    session(sessionId: $sessionId) {\n      id\n      timeline(branch: $branch, after: $after, first: $first) {\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n        edges {\n          node {\n            sha\n            headline\n            turn {\n              number\n            }\n          }\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ReplayCommitChanges($sessionId: String!, $sha: String!) {\n    session(sessionId: $sessionId) {\n      id\n      commit(sha: $sha) {\n        sha\n        diff {\n          additions\n          deletions\n          files {\n            path\n            oldPath\n            status\n            additions\n            deletions\n          }\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query ReplayCommitChanges($sessionId: String!, $sha: String!) {\n    session(sessionId: $sessionId) {\n      id\n      commit(sha: $sha) {\n        sha\n        diff {\n          additions\n          deletions\n          files {\n            path\n            oldPath\n            status\n            additions\n            deletions\n          }\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ReplayCommitPatches($sessionId: String!, $sha: String!) {\n    session(sessionId: $sessionId) {\n      id\n      commit(sha: $sha) {\n        sha\n        diff {\n          files {\n            path\n            patch\n            truncated\n          }\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query ReplayCommitPatches($sessionId: String!, $sha: String!) {\n    session(sessionId: $sessionId) {\n      id\n      commit(sha: $sha) {\n        sha\n        diff {\n          files {\n            path\n            patch\n            truncated\n          }\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment CodeDiffFields on Commit {\n    sha\n    diff {\n      additions\n      deletions\n      files {\n        path\n        oldPath\n        status\n        additions\n        deletions\n        patch\n        truncated\n      }\n    }\n  }\n"): (typeof documents)["\n  fragment CodeDiffFields on Commit {\n    sha\n    diff {\n      additions\n      deletions\n      files {\n        path\n        oldPath\n        status\n        additions\n        deletions\n        patch\n        truncated\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ReplayCodeChanges($sessionId: String!, $sha: String!) {\n    session(sessionId: $sessionId) {\n      id\n      commit(sha: $sha) {\n        sha\n        turn {\n          number\n          projectCommit {\n            result\n            reason\n            message\n            dirtyPaths\n            paths\n            commit {\n              ...CodeDiffFields\n            }\n            snapshot {\n              ...CodeDiffFields\n            }\n          }\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query ReplayCodeChanges($sessionId: String!, $sha: String!) {\n    session(sessionId: $sessionId) {\n      id\n      commit(sha: $sha) {\n        sha\n        turn {\n          number\n          projectCommit {\n            result\n            reason\n            message\n            dirtyPaths\n            paths\n            commit {\n              ...CodeDiffFields\n            }\n            snapshot {\n              ...CodeDiffFields\n            }\n          }\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription ReplayCodeCommitted($projectId: String!) {\n    projectCommitted(projectId: $projectId) {\n      turnNumber\n    }\n  }\n"): (typeof documents)["\n  subscription ReplayCodeCommitted($projectId: String!) {\n    projectCommitted(projectId: $projectId) {\n      turnNumber\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription ReplayCodeSkipped($projectId: String!) {\n    dirtyTreeWarning(projectId: $projectId) {\n      turnNumber\n    }\n  }\n"): (typeof documents)["\n  subscription ReplayCodeSkipped($projectId: String!) {\n    dirtyTreeWarning(projectId: $projectId) {\n      turnNumber\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ReplayOpenTurn($sessionId: String!) {\n    session(sessionId: $sessionId) {\n      id\n      openTurn {\n        number\n        messages {\n          ...ReplayMessageFields\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query ReplayOpenTurn($sessionId: String!) {\n    session(sessionId: $sessionId) {\n      id\n      openTurn {\n        number\n        messages {\n          ...ReplayMessageFields\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription SessionTurnUpdates($sessionId: String!) {\n    turnUpdated(sessionId: $sessionId) {\n      turn {\n        number\n        open\n      }\n      messages {\n        ...ReplayMessageFields\n      }\n      closed\n    }\n  }\n"): (typeof documents)["\n  subscription SessionTurnUpdates($sessionId: String!) {\n    turnUpdated(sessionId: $sessionId) {\n      turn {\n        number\n        open\n      }\n      messages {\n        ...ReplayMessageFields\n      }\n      closed\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query SessionsNav($first: Int!) {\n    sessions(first: $first) {\n      totalCount\n      edges {\n        node {\n          id\n          sessionId\n          title\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query SessionsNav($first: Int!) {\n    sessions(first: $first) {\n      totalCount\n      edges {\n        node {\n          id\n          sessionId\n          title\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription AnyTurnCommitted {\n    turnCommitted {\n      session {\n        sessionId\n      }\n    }\n  }\n"): (typeof documents)["\n  subscription AnyTurnCommitted {\n    turnCommitted {\n      session {\n        sessionId\n      }\n    }\n  }\n"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;