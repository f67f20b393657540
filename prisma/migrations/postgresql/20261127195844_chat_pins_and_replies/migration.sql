-- AlterTable
ALTER TABLE "ChatMessage" ADD COLUMN     "replyAccountId" TEXT,
ADD COLUMN     "replyExcerpt" TEXT,
ADD COLUMN     "replyToId" TEXT;

-- CreateTable
CREATE TABLE "ChatPin" (
    "panelId" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "messageId" TEXT,
    "text" TEXT NOT NULL,
    "accountId" TEXT,
    "admin" BOOLEAN NOT NULL DEFAULT false,
    "pinnedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ChatPin_pkey" PRIMARY KEY ("panelId")
);

