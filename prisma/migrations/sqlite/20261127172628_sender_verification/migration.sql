-- AlterTable
ALTER TABLE "ReceiptEmail" ADD COLUMN "senderCheckedAt" DATETIME;
ALTER TABLE "ReceiptEmail" ADD COLUMN "senderNextCheckAt" DATETIME;
ALTER TABLE "ReceiptEmail" ADD COLUMN "senderProblem" TEXT;
ALTER TABLE "ReceiptEmail" ADD COLUMN "senderStatus" TEXT;

-- CreateIndex
CREATE INDEX "ReceiptEmail_senderNextCheckAt_idx" ON "ReceiptEmail"("senderNextCheckAt");

