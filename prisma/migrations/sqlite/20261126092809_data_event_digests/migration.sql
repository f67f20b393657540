-- CreateTable
CREATE TABLE "DataEventDigest" (
    "dataProviderId" TEXT NOT NULL,
    "digest" TEXT NOT NULL,
    "eventId" TEXT NOT NULL,
    "firstSeenAt" DATETIME NOT NULL,

    PRIMARY KEY ("dataProviderId", "digest")
);

-- CreateIndex
CREATE INDEX "DataEventDigest_firstSeenAt_idx" ON "DataEventDigest"("firstSeenAt");

