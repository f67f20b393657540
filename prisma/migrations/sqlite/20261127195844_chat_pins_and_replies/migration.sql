-- AlterTable
ALTER TABLE "ChatMessage" ADD COLUMN "replyAccountId" TEXT;
ALTER TABLE "ChatMessage" ADD COLUMN "replyExcerpt" TEXT;
ALTER TABLE "ChatMessage" ADD COLUMN "replyToId" TEXT;

-- CreateTable
CREATE TABLE "ChatPin" (
    "panelId" TEXT NOT NULL PRIMARY KEY,
    "siteId" TEXT NOT NULL,
    "messageId" TEXT,
    "text" TEXT NOT NULL,
    "accountId" TEXT,
    "admin" BOOLEAN NOT NULL DEFAULT false,
    "pinnedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

