-- AlterTable
ALTER TABLE "Turn" ADD COLUMN "projectCaptureError" TEXT;
ALTER TABLE "Turn" ADD COLUMN "projectFiles" TEXT;
ALTER TABLE "Turn" ADD COLUMN "projectHeadAtClose" TEXT;
ALTER TABLE "Turn" ADD COLUMN "projectReason" TEXT;
ALTER TABLE "Turn" ADD COLUMN "projectSnapshotSha" TEXT;
ALTER TABLE "Turn" ADD COLUMN "projectSuspects" TEXT;
ALTER TABLE "Turn" ADD COLUMN "startedAt" DATETIME;

-- CreateTable
CREATE TABLE "ProjectRestore" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "sessionId" TEXT NOT NULL,
    "projectId" TEXT NOT NULL,
    "toTurn" INTEGER NOT NULL,
    "branch" TEXT NOT NULL,
    "files" TEXT NOT NULL,
    "result" TEXT NOT NULL,
    "commitSha" TEXT,
    "snapshotSha" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE INDEX "ProjectRestore_sessionId_createdAt_idx" ON "ProjectRestore"("sessionId", "createdAt");
