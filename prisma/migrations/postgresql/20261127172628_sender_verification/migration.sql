-- AlterTable
ALTER TABLE "ReceiptEmail" ADD COLUMN     "senderCheckedAt" TIMESTAMP(3),
ADD COLUMN     "senderNextCheckAt" TIMESTAMP(3),
ADD COLUMN     "senderProblem" TEXT,
ADD COLUMN     "senderStatus" TEXT;

-- CreateIndex
CREATE INDEX "ReceiptEmail_senderNextCheckAt_idx" ON "ReceiptEmail"("senderNextCheckAt");

