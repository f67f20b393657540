-- AlterTable
ALTER TABLE "Video" ADD COLUMN "clipOf" TEXT;

-- CreateTable
CREATE TABLE "Clip" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "siteId" TEXT NOT NULL,
    "contractId" TEXT NOT NULL,
    "streamId" TEXT NOT NULL,
    "vodId" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "durationSeconds" REAL NOT NULL,
    "sourceVodId" TEXT,
    "liveBroadcastId" TEXT,
    "createdAt" DATETIME NOT NULL,
    "vodDeletedAt" DATETIME,
    CONSTRAINT "Clip_streamId_fkey" FOREIGN KEY ("streamId") REFERENCES "Stream" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "Clip_siteId_vodId_idx" ON "Clip"("siteId", "vodId");

-- CreateIndex
CREATE UNIQUE INDEX "Clip_contractId_vodId_key" ON "Clip"("contractId", "vodId");

