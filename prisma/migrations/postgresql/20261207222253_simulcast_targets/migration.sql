-- CreateTable
CREATE TABLE "SimulcastTarget" (
    "id" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "streamId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "streamKeyEncrypted" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'idle',
    "reason" TEXT,
    "stateChangedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "SimulcastTarget_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "SimulcastTarget_streamId_name_key" ON "SimulcastTarget"("streamId", "name");

-- AddForeignKey
ALTER TABLE "SimulcastTarget" ADD CONSTRAINT "SimulcastTarget_streamId_fkey" FOREIGN KEY ("streamId") REFERENCES "Stream"("id") ON DELETE CASCADE ON UPDATE CASCADE;

