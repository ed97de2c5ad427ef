-- A chat's timeline (the pages its visitor viewed) in rows of its own,
-- one per entry in the order they were added, instead of inside the
-- chat's body: recording a page view inserts one row and rewrites neither
-- the chat nor its other entries. The timelines chats hold move here.

-- +goose Up
CREATE TABLE chat_timeline (
    company_id bigint NOT NULL,
    chat_id    text NOT NULL,
    position   integer NOT NULL,
    body       jsonb NOT NULL,
    PRIMARY KEY (company_id, chat_id, position)
);
INSERT INTO chat_timeline (company_id, chat_id, position, body)
SELECT h.company_id, h.id, e.n - 1, e.entry
FROM chats h, jsonb_array_elements(h.body->'timeline') WITH ORDINALITY AS e(entry, n)
WHERE jsonb_typeof(h.body->'timeline') = 'array';
UPDATE chats SET body = body - 'timeline' WHERE body ? 'timeline';

-- +goose Down
UPDATE chats h SET body = h.body || jsonb_build_object('timeline', l.entries)
FROM (SELECT company_id, chat_id, jsonb_agg(body ORDER BY position) AS entries
      FROM chat_timeline GROUP BY company_id, chat_id) l
WHERE h.company_id = l.company_id AND h.id = l.chat_id;
DROP TABLE chat_timeline;
