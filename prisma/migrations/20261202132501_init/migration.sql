-- CreateTable
CREATE TABLE "Project" (
    "projectId" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "workdir" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'ACTIVE',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "Session" (
    "sessionId" TEXT NOT NULL PRIMARY KEY,
    "title" TEXT,
    "agentId" TEXT,
    "model" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "projectId" TEXT,
    "projectJoinedAt" DATETIME,
    "nextSeq" INTEGER NOT NULL DEFAULT 1,
    "currentBranch" TEXT NOT NULL DEFAULT 'main',
    "viewTurnId" TEXT,
    "openTurnId" TEXT,
    CONSTRAINT "Session_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project" ("projectId") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Message" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "sessionId" TEXT NOT NULL,
    "messageId" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "role" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "predecessorId" TEXT,
    "callerId" TEXT,
    "toolName" TEXT,
    "toolCallId" TEXT,
    "metadata" TEXT,
    "createdAt" DATETIME NOT NULL,
    "turnId" TEXT,
    CONSTRAINT "Message_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "Session" ("sessionId") ON DELETE RESTRICT ON UPDATE CASCADE,
    CONSTRAINT "Message_predecessorId_fkey" FOREIGN KEY ("predecessorId") REFERENCES "Message" ("id") ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT "Message_callerId_fkey" FOREIGN KEY ("callerId") REFERENCES "Message" ("id") ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT "Message_turnId_fkey" FOREIGN KEY ("turnId") REFERENCES "Turn" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Turn" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "sessionId" TEXT NOT NULL,
    "number" INTEGER NOT NULL,
    "branch" TEXT NOT NULL,
    "parentTurnId" TEXT,
    "userMessageId" TEXT NOT NULL,
    "open" BOOLEAN NOT NULL DEFAULT true,
    "durationMs" INTEGER,
    "tokens" INTEGER,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "closedAt" DATETIME,
    "mirrorState" TEXT NOT NULL DEFAULT 'PENDING',
    "commitSha" TEXT,
    "mirroredAt" DATETIME,
    "dirtyAtStart" TEXT,
    "touchedPaths" TEXT,
    "projectResult" TEXT,
    "projectCommitSha" TEXT,
    "projectDirtyPaths" TEXT,
    "projectMessage" TEXT,
    "projectId" TEXT,
    CONSTRAINT "Turn_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "Session" ("sessionId") ON DELETE RESTRICT ON UPDATE CASCADE,
    CONSTRAINT "Turn_parentTurnId_fkey" FOREIGN KEY ("parentTurnId") REFERENCES "Turn" ("id") ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT "Turn_userMessageId_fkey" FOREIGN KEY ("userMessageId") REFERENCES "Message" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Branch" (
    "sessionId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "forkTurnId" TEXT,
    "headTurnId" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("sessionId", "name"),
    CONSTRAINT "Branch_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "Session" ("sessionId") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "MirrorJob" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "sessionId" TEXT NOT NULL,
    "turnId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastError" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "MirrorJob_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "Session" ("sessionId") ON DELETE RESTRICT ON UPDATE CASCADE
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
CREATE INDEX "Message_turnId_seq_idx" ON "Message"("turnId", "seq");

-- CreateIndex
CREATE INDEX "Message_predecessorId_idx" ON "Message"("predecessorId");

-- CreateIndex
CREATE UNIQUE INDEX "Message_sessionId_messageId_key" ON "Message"("sessionId", "messageId");

-- CreateIndex
CREATE UNIQUE INDEX "Message_sessionId_seq_key" ON "Message"("sessionId", "seq");

-- CreateIndex
CREATE INDEX "Turn_sessionId_closedAt_idx" ON "Turn"("sessionId", "closedAt");

-- CreateIndex
CREATE UNIQUE INDEX "Turn_sessionId_branch_number_key" ON "Turn"("sessionId", "branch", "number");

-- CreateIndex
CREATE INDEX "MirrorJob_kind_nextAttemptAt_idx" ON "MirrorJob"("kind", "nextAttemptAt");

-- CreateIndex
CREATE UNIQUE INDEX "MirrorJob_turnId_kind_key" ON "MirrorJob"("turnId", "kind");
