-- Data only: a channel's sidebar panels become references (pages -> panels), as every page write now keeps them.
INSERT OR IGNORE INTO "ContentReference" ("siteId", "targetCollection", "targetId", "sourceCollection", "sourceId", "sourceName")
SELECT DISTINCT p."siteId", 'panels', json_extract(item.value, '$.id'), 'pages', p."id", CASE WHEN p."name" <> '' THEN p."name" ELSE p."slug" END
FROM "Page" p, json_each(p."document", '$.renderers.sidebar.items') item
WHERE p."type" = 'channel'
  AND json_type(p."document", '$.renderers.sidebar.items') = 'array'
  AND json_type(item.value, '$.id') = 'text'
  AND json_extract(item.value, '$.id') <> '';
