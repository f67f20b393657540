-- CreateTable
CREATE TABLE "WatchMinute" (
    "siteId" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "channelId" TEXT NOT NULL,
    "minute" INTEGER NOT NULL,
    "mask" BIGINT NOT NULL,

    CONSTRAINT "WatchMinute_pkey" PRIMARY KEY ("siteId","accountId","channelId","minute")
);

-- CreateTable
CREATE TABLE "QuestWatchProgress" (
    "questId" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "actionKey" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "seconds" INTEGER NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "QuestWatchProgress_pkey" PRIMARY KEY ("questId","accountId","actionKey")
);

-- CreateTable
CREATE TABLE "QuestCompletion" (
    "questId" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "claimId" TEXT NOT NULL,
    "productId" TEXT NOT NULL,
    "rewardType" TEXT NOT NULL,
    "webhookId" TEXT,
    "webhookType" TEXT,
    "webhookValue" DOUBLE PRECISION,
    "completedAt" TIMESTAMP(3) NOT NULL,
    "claimRecordedAt" TIMESTAMP(3),

    CONSTRAINT "QuestCompletion_pkey" PRIMARY KEY ("questId","accountId")
);

-- CreateTable
CREATE TABLE "QuestRaffle" (
    "questId" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "winners" JSONB NOT NULL,
    "drawnAt" TIMESTAMP(3) NOT NULL,
    "settledAt" TIMESTAMP(3),

    CONSTRAINT "QuestRaffle_pkey" PRIMARY KEY ("questId")
);

-- CreateIndex
CREATE UNIQUE INDEX "QuestCompletion_claimId_key" ON "QuestCompletion"("claimId");

-- CreateIndex
CREATE INDEX "QuestCompletion_claimRecordedAt_idx" ON "QuestCompletion"("claimRecordedAt");

-- CreateIndex
CREATE INDEX "QuestCompletion_siteId_accountId_idx" ON "QuestCompletion"("siteId", "accountId");

-- CreateIndex
CREATE INDEX "QuestRaffle_settledAt_idx" ON "QuestRaffle"("settledAt");

