-- MirrorJob is renamed OutboxJob (it carries project jobs too). Written by hand from the
-- generated diff, which dropped the table: the rows are copied first, so pending work
-- (turns acknowledged but not yet mirrored or committed) survives the upgrade.

-- CreateTable
CREATE TABLE "OutboxJob" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "sessionId" TEXT NOT NULL,
    "turnId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastError" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "OutboxJob_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "Session" ("sessionId") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CopyRows (ids kept, so the jobs keep their order)
INSERT INTO "OutboxJob" ("id", "sessionId", "turnId", "kind", "attempts", "nextAttemptAt", "lastError", "createdAt")
SELECT "id", "sessionId", "turnId", "kind", "attempts", "nextAttemptAt", "lastError", "createdAt" FROM "MirrorJob";

-- DropTable
DROP TABLE "MirrorJob";

-- CreateIndex
CREATE INDEX "OutboxJob_kind_nextAttemptAt_idx" ON "OutboxJob"("kind", "nextAttemptAt");

-- CreateIndex
CREATE UNIQUE INDEX "OutboxJob_turnId_kind_key" ON "OutboxJob"("turnId", "kind");
