-- CreateTable
CREATE TABLE "QaQuestion" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "siteId" TEXT NOT NULL,
    "panelId" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "anonymous" BOOLEAN NOT NULL DEFAULT false,
    "text" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "votes" INTEGER NOT NULL DEFAULT 0,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "highlightedAt" DATETIME
);

-- CreateTable
CREATE TABLE "QaVote" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "siteId" TEXT NOT NULL,
    "panelId" TEXT NOT NULL,
    "questionId" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE INDEX "QaQuestion_panelId_status_idx" ON "QaQuestion"("panelId", "status");

-- CreateIndex
CREATE INDEX "QaQuestion_siteId_accountId_createdAt_idx" ON "QaQuestion"("siteId", "accountId", "createdAt");

-- CreateIndex
CREATE INDEX "QaVote_panelId_accountId_idx" ON "QaVote"("panelId", "accountId");

-- CreateIndex
CREATE UNIQUE INDEX "QaVote_questionId_accountId_key" ON "QaVote"("questionId", "accountId");

