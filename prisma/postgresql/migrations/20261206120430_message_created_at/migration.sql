-- CreateIndex
CREATE INDEX "Message_createdAt_idx" ON "Message"("createdAt");
