-- CreateTable
CREATE TABLE "ViewerPresence" (
    "instanceId" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "channelId" TEXT NOT NULL,
    "concurrents" INTEGER NOT NULL,
    "views" INTEGER NOT NULL,
    "updatedAt" DATETIME NOT NULL,

    PRIMARY KEY ("instanceId", "siteId", "channelId")
);

-- CreateTable
CREATE TABLE "SuperApiKey" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revokedAt" DATETIME
);

-- CreateIndex
CREATE INDEX "ViewerPresence_siteId_idx" ON "ViewerPresence"("siteId");

