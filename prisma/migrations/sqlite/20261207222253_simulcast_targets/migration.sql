-- CreateTable
CREATE TABLE "SimulcastTarget" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "siteId" TEXT NOT NULL,
    "streamId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "streamKeyEncrypted" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'idle',
    "reason" TEXT,
    "stateChangedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "SimulcastTarget_streamId_fkey" FOREIGN KEY ("streamId") REFERENCES "Stream" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "SimulcastTarget_streamId_name_key" ON "SimulcastTarget"("streamId", "name");

