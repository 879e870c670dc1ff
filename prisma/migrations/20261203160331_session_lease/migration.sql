-- CreateTable
CREATE TABLE "SessionLease" (
    "sessionId" TEXT NOT NULL PRIMARY KEY,
    "owner" TEXT NOT NULL,
    "expiresAt" DATETIME NOT NULL,
    "acquiredAt" DATETIME NOT NULL,
    CONSTRAINT "SessionLease_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "Session" ("sessionId") ON DELETE CASCADE ON UPDATE CASCADE
);
