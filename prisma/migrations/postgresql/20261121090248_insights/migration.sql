-- CreateTable
CREATE TABLE "ViewerPresence" (
    "instanceId" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "channelId" TEXT NOT NULL,
    "concurrents" INTEGER NOT NULL,
    "views" INTEGER NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ViewerPresence_pkey" PRIMARY KEY ("instanceId","siteId","channelId")
);

-- CreateTable
CREATE TABLE "SuperApiKey" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revokedAt" TIMESTAMP(3),

    CONSTRAINT "SuperApiKey_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "ViewerPresence_siteId_idx" ON "ViewerPresence"("siteId");

