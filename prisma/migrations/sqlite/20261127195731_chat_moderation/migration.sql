-- CreateTable
CREATE TABLE "ChatHeld" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "siteId" TEXT NOT NULL,
    "panelId" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "admin" BOOLEAN NOT NULL DEFAULT false,
    "text" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "dueAt" DATETIME,
    "liveBroadcastId" TEXT,
    "streamSecond" INTEGER,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "decidedAt" DATETIME
);

-- CreateTable
CREATE TABLE "ChatReport" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "siteId" TEXT NOT NULL,
    "panelId" TEXT NOT NULL,
    "messageId" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "ChatWarning" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "siteId" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "acknowledgedAt" DATETIME
);

-- CreateIndex
CREATE INDEX "ChatHeld_panelId_status_createdAt_idx" ON "ChatHeld"("panelId", "status", "createdAt");

-- CreateIndex
CREATE INDEX "ChatHeld_status_dueAt_idx" ON "ChatHeld"("status", "dueAt");

-- CreateIndex
CREATE INDEX "ChatReport_panelId_createdAt_idx" ON "ChatReport"("panelId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "ChatReport_messageId_accountId_key" ON "ChatReport"("messageId", "accountId");

-- CreateIndex
CREATE INDEX "ChatWarning_siteId_accountId_acknowledgedAt_idx" ON "ChatWarning"("siteId", "accountId", "acknowledgedAt");

