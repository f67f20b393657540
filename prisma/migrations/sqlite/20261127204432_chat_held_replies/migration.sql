-- AlterTable
ALTER TABLE "ChatHeld" ADD COLUMN "replyAccountId" TEXT;
ALTER TABLE "ChatHeld" ADD COLUMN "replyExcerpt" TEXT;
ALTER TABLE "ChatHeld" ADD COLUMN "replyToId" TEXT;

