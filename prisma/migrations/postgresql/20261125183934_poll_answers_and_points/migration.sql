-- CreateTable
CREATE TABLE "PollAnswer" (
    "id" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "pollId" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "answerId" TEXT NOT NULL,
    "channelId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PollAnswer_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "PointAward" (
    "id" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "sourceId" TEXT NOT NULL,
    "points" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PointAward_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "LeaderboardEntry" (
    "siteId" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "points" INTEGER NOT NULL,
    "reachedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "LeaderboardEntry_pkey" PRIMARY KEY ("siteId","accountId")
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

