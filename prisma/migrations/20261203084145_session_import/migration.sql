-- AlterTable
ALTER TABLE "Session" ADD COLUMN "metadata" TEXT;
ALTER TABLE "Session" ADD COLUMN "parentSessionId" TEXT;
ALTER TABLE "Session" ADD COLUMN "source" TEXT;

-- CreateIndex
CREATE INDEX "Session_parentSessionId_idx" ON "Session"("parentSessionId");
