-- CreateTable
CREATE TABLE "PollAnswer" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "siteId" TEXT NOT NULL,
    "pollId" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "answerId" TEXT NOT NULL,
    "channelId" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "PointAward" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "siteId" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "sourceId" TEXT NOT NULL,
    "points" INTEGER NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "LeaderboardEntry" (
    "siteId" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "points" INTEGER NOT NULL,
    "reachedAt" DATETIME NOT NULL,

    PRIMARY KEY ("siteId", "accountId")
);

-- CreateIndex
CREATE INDEX "PollAnswer_pollId_answerId_idx" ON "PollAnswer"("pollId", "answerId");

-- CreateIndex
CREATE INDEX "PollAnswer_siteId_accountId_createdAt_idx" ON "PollAnswer"("siteId", "accountId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "PollAnswer_pollId_accountId_key" ON "PollAnswer"("pollId", "accountId");

-- CreateIndex
CREATE UNIQUE INDEX "PointAward_siteId_accountId_reason_sourceId_key" ON "PointAward"("siteId", "accountId", "reason", "sourceId");

-- CreateIndex
CREATE INDEX "LeaderboardEntry_siteId_points_reachedAt_idx" ON "LeaderboardEntry"("siteId", "points" DESC, "reachedAt");

