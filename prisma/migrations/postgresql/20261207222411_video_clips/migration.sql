-- AlterTable
ALTER TABLE "Video" ADD COLUMN     "clipOf" TEXT;

-- CreateTable
CREATE TABLE "Clip" (
    "id" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "contractId" TEXT NOT NULL,
    "streamId" TEXT NOT NULL,
    "vodId" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "durationSeconds" DOUBLE PRECISION NOT NULL,
    "sourceVodId" TEXT,
    "liveBroadcastId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "vodDeletedAt" TIMESTAMP(3),

    CONSTRAINT "Clip_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Clip_siteId_vodId_idx" ON "Clip"("siteId", "vodId");

-- CreateIndex
CREATE UNIQUE INDEX "Clip_contractId_vodId_key" ON "Clip"("contractId", "vodId");

-- AddForeignKey
ALTER TABLE "Clip" ADD CONSTRAINT "Clip_streamId_fkey" FOREIGN KEY ("streamId") REFERENCES "Stream"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

