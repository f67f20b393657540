-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_DeveloperKey" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "siteId" TEXT NOT NULL,
    "name" TEXT NOT NULL DEFAULT '',
    "prefix" TEXT NOT NULL DEFAULT '',
    "keyHash" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" DATETIME,
    "revokedAt" DATETIME
);
INSERT INTO "new_DeveloperKey" ("createdAt", "id", "keyHash", "revokedAt", "siteId") SELECT "createdAt", "id", "keyHash", "revokedAt", "siteId" FROM "DeveloperKey";
DROP TABLE "DeveloperKey";
ALTER TABLE "new_DeveloperKey" RENAME TO "DeveloperKey";
CREATE UNIQUE INDEX "DeveloperKey_keyHash_key" ON "DeveloperKey"("keyHash");
CREATE INDEX "DeveloperKey_siteId_idx" ON "DeveloperKey"("siteId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

