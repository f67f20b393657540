-- AlterTable
ALTER TABLE "ChatHeld" ADD COLUMN     "replyAccountId" TEXT,
ADD COLUMN     "replyExcerpt" TEXT,
ADD COLUMN     "replyToId" TEXT;

