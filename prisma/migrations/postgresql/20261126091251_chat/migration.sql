-- CreateTable
CREATE TABLE "ChatRoom" (
    "panelId" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "lastSeq" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "ChatRoom_pkey" PRIMARY KEY ("panelId")
);

-- CreateTable
CREATE TABLE "ChatMessage" (
    "id" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "panelId" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "accountId" TEXT NOT NULL,
    "admin" BOOLEAN NOT NULL DEFAULT false,
    "text" TEXT NOT NULL,
    "liveBroadcastId" TEXT,
    "streamSecond" INTEGER,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deletedAt" TIMESTAMP(3),

    CONSTRAINT "ChatMessage_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ChatBan" (
    "siteId" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "until" TIMESTAMP(3),
    "reason" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ChatBan_pkey" PRIMARY KEY ("siteId","accountId")
);

-- CreateIndex
CREATE INDEX "ChatMessage_siteId_accountId_createdAt_idx" ON "ChatMessage"("siteId", "accountId", "createdAt");

-- CreateIndex
CREATE INDEX "ChatMessage_liveBroadcastId_streamSecond_idx" ON "ChatMessage"("liveBroadcastId", "streamSecond");

-- CreateIndex
CREATE INDEX "ChatMessage_createdAt_idx" ON "ChatMessage"("createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "ChatMessage_panelId_seq_key" ON "ChatMessage"("panelId", "seq");

