-- AlterTable
ALTER TABLE "Page" ADD COLUMN "streamId" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "Page_siteId_streamId_key" ON "Page"("siteId", "streamId");

-- Data: one stream, one channel of a site. The oldest page of the site naming a stream holds it; a later one (a clone) lets go of it.
UPDATE "Page" SET "streamId" = json_extract("document", '$.renderers.livestream.stream_id')
WHERE json_type("document", '$.renderers.livestream.stream_id') = 'text'
  AND json_extract("document", '$.renderers.livestream.stream_id') <> ''
  AND NOT EXISTS (
    SELECT 1 FROM "Page" o
    WHERE o."siteId" = "Page"."siteId"
      AND json_type(o."document", '$.renderers.livestream.stream_id') = 'text'
      AND json_extract(o."document", '$.renderers.livestream.stream_id') = json_extract("Page"."document", '$.renderers.livestream.stream_id')
      AND (o."createdAt" < "Page"."createdAt" OR (o."createdAt" = "Page"."createdAt" AND o."id" < "Page"."id"))
  );
UPDATE "Page" SET "document" = json_remove("document", '$.renderers.livestream.stream_id')
WHERE "streamId" IS NULL
  AND json_type("document", '$.renderers.livestream.stream_id') = 'text'
  AND json_extract("document", '$.renderers.livestream.stream_id') <> '';
