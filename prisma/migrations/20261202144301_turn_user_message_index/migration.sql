-- CreateIndex
CREATE INDEX "Turn_userMessageId_idx" ON "Turn"("userMessageId");
