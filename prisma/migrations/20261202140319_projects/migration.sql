-- AlterTable
ALTER TABLE "Session" ADD COLUMN "projectDirtyBaseline" TEXT;

-- CreateIndex
CREATE INDEX "Turn_sessionId_commitSha_idx" ON "Turn"("sessionId", "commitSha");
