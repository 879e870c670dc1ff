-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "Role" AS ENUM ('USER', 'ASSISTANT', 'TOOL', 'SYSTEM');

-- CreateEnum
CREATE TYPE "ProjectStatus" AS ENUM ('ACTIVE', 'PAUSED', 'DONE');

-- CreateEnum
CREATE TYPE "MirrorState" AS ENUM ('PENDING', 'COMMITTED', 'FAILED');

-- CreateEnum
CREATE TYPE "ProjectCommitResult" AS ENUM ('PENDING', 'COMMITTED', 'NOTHING_TO_COMMIT', 'SKIPPED_DIRTY', 'SKIPPED_BUSY', 'FAILED');

-- CreateEnum
CREATE TYPE "BranchKind" AS ENUM ('MAIN', 'RETRY', 'FORK');

-- CreateEnum
CREATE TYPE "OutboxKind" AS ENUM ('SESSION', 'PROJECT');

-- CreateEnum
CREATE TYPE "ProjectFilesResultKind" AS ENUM ('COMMITTED', 'APPLIED', 'SNAPSHOT', 'NOTHING');

-- CreateTable
CREATE TABLE "Project" (
    "projectId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "workdir" TEXT NOT NULL,
    "status" "ProjectStatus" NOT NULL DEFAULT 'ACTIVE',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "trustedConfig" TEXT,

    CONSTRAINT "Project_pkey" PRIMARY KEY ("projectId")
);

-- CreateTable
CREATE TABLE "Session" (
    "sessionId" TEXT NOT NULL,
    "title" TEXT,
    "agentId" TEXT,
    "model" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "projectId" TEXT,
    "projectJoinedAt" TIMESTAMP(3),
    "projectDirtyBaseline" TEXT,
    "nextSeq" INTEGER NOT NULL DEFAULT 1,
    "currentBranch" TEXT NOT NULL DEFAULT 'main',
    "viewTurnId" TEXT,
    "openTurnId" TEXT,
    "source" TEXT,
    "metadata" TEXT,
    "parentSessionId" TEXT,

    CONSTRAINT "Session_pkey" PRIMARY KEY ("sessionId")
);

-- CreateTable
CREATE TABLE "Message" (
    "id" TEXT NOT NULL,
    "sessionId" TEXT NOT NULL,
    "messageId" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "role" "Role" NOT NULL,
    "content" TEXT NOT NULL,
    "predecessorId" TEXT,
    "callerId" TEXT,
    "toolName" TEXT,
    "toolCallId" TEXT,
    "metadata" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "turnId" TEXT,

    CONSTRAINT "Message_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Turn" (
    "id" TEXT NOT NULL,
    "sessionId" TEXT NOT NULL,
    "number" INTEGER NOT NULL,
    "branch" TEXT NOT NULL,
    "parentTurnId" TEXT,
    "userMessageId" TEXT NOT NULL,
    "open" BOOLEAN NOT NULL DEFAULT true,
    "durationMs" INTEGER,
    "tokens" INTEGER,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "closedAt" TIMESTAMP(3),
    "mirrorState" "MirrorState" NOT NULL DEFAULT 'PENDING',
    "commitSha" TEXT,
    "mirroredAt" TIMESTAMP(3),
    "dirtyAtStart" TEXT,
    "touchedPaths" TEXT,
    "startedAt" TIMESTAMP(3),
    "projectResult" "ProjectCommitResult",
    "projectCommitSha" TEXT,
    "projectDirtyPaths" TEXT,
    "projectMessage" TEXT,
    "projectReason" TEXT,
    "projectId" TEXT,
    "projectHeadAtClose" TEXT,
    "projectFiles" TEXT,
    "projectSuspects" TEXT,
    "projectCaptureError" TEXT,
    "projectSnapshotSha" TEXT,
    "messagesThrough" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "Turn_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Branch" (
    "sessionId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "kind" "BranchKind" NOT NULL,
    "forkTurnId" TEXT,
    "headTurnId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Branch_pkey" PRIMARY KEY ("sessionId","name")
);

-- CreateTable
CREATE TABLE "OutboxJob" (
    "id" SERIAL NOT NULL,
    "sessionId" TEXT NOT NULL,
    "turnId" TEXT NOT NULL,
    "kind" "OutboxKind" NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastError" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "OutboxJob_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ProjectRestore" (
    "id" TEXT NOT NULL,
    "sessionId" TEXT NOT NULL,
    "projectId" TEXT NOT NULL,
    "toTurn" INTEGER NOT NULL,
    "branch" TEXT NOT NULL,
    "files" TEXT NOT NULL,
    "result" "ProjectFilesResultKind" NOT NULL,
    "commitSha" TEXT,
    "snapshotSha" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ProjectRestore_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Project_workdir_key" ON "Project"("workdir");

-- CreateIndex
CREATE INDEX "Project_createdAt_idx" ON "Project"("createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "Session_openTurnId_key" ON "Session"("openTurnId");

-- CreateIndex
CREATE INDEX "Session_createdAt_idx" ON "Session"("createdAt");

-- CreateIndex
CREATE INDEX "Session_projectId_createdAt_idx" ON "Session"("projectId", "createdAt");

-- CreateIndex
CREATE INDEX "Session_parentSessionId_idx" ON "Session"("parentSessionId");

-- CreateIndex
CREATE INDEX "Message_turnId_seq_idx" ON "Message"("turnId", "seq");

-- CreateIndex
CREATE INDEX "Message_predecessorId_idx" ON "Message"("predecessorId");

-- CreateIndex
CREATE UNIQUE INDEX "Message_sessionId_messageId_key" ON "Message"("sessionId", "messageId");

-- CreateIndex
CREATE UNIQUE INDEX "Message_sessionId_seq_key" ON "Message"("sessionId", "seq");

-- CreateIndex
CREATE INDEX "Turn_sessionId_commitSha_idx" ON "Turn"("sessionId", "commitSha");

-- CreateIndex
CREATE INDEX "Turn_userMessageId_idx" ON "Turn"("userMessageId");

-- CreateIndex
CREATE INDEX "Turn_sessionId_closedAt_idx" ON "Turn"("sessionId", "closedAt");

-- CreateIndex
CREATE UNIQUE INDEX "Turn_sessionId_branch_number_key" ON "Turn"("sessionId", "branch", "number");

-- CreateIndex
CREATE INDEX "OutboxJob_kind_nextAttemptAt_idx" ON "OutboxJob"("kind", "nextAttemptAt");

-- CreateIndex
CREATE UNIQUE INDEX "OutboxJob_turnId_kind_key" ON "OutboxJob"("turnId", "kind");

-- CreateIndex
CREATE INDEX "ProjectRestore_sessionId_createdAt_idx" ON "ProjectRestore"("sessionId", "createdAt");

-- AddForeignKey
ALTER TABLE "Session" ADD CONSTRAINT "Session_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project"("projectId") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Message" ADD CONSTRAINT "Message_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "Session"("sessionId") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey (DEFERRABLE, by hand: a turn and its messages name each other and are written in one transaction that defers them, src/db/dialect.ts)
ALTER TABLE "Message" ADD CONSTRAINT "Message_predecessorId_fkey" FOREIGN KEY ("predecessorId") REFERENCES "Message"("id") ON DELETE SET NULL ON UPDATE CASCADE DEFERRABLE INITIALLY IMMEDIATE;

-- AddForeignKey
ALTER TABLE "Message" ADD CONSTRAINT "Message_callerId_fkey" FOREIGN KEY ("callerId") REFERENCES "Message"("id") ON DELETE SET NULL ON UPDATE CASCADE DEFERRABLE INITIALLY IMMEDIATE;

-- AddForeignKey
ALTER TABLE "Message" ADD CONSTRAINT "Message_turnId_fkey" FOREIGN KEY ("turnId") REFERENCES "Turn"("id") ON DELETE SET NULL ON UPDATE CASCADE DEFERRABLE INITIALLY IMMEDIATE;

-- AddForeignKey
ALTER TABLE "Turn" ADD CONSTRAINT "Turn_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "Session"("sessionId") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Turn" ADD CONSTRAINT "Turn_parentTurnId_fkey" FOREIGN KEY ("parentTurnId") REFERENCES "Turn"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Turn" ADD CONSTRAINT "Turn_userMessageId_fkey" FOREIGN KEY ("userMessageId") REFERENCES "Message"("id") ON DELETE RESTRICT ON UPDATE CASCADE DEFERRABLE INITIALLY IMMEDIATE;

-- AddForeignKey
ALTER TABLE "Branch" ADD CONSTRAINT "Branch_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "Session"("sessionId") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "OutboxJob" ADD CONSTRAINT "OutboxJob_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "Session"("sessionId") ON DELETE RESTRICT ON UPDATE CASCADE;
