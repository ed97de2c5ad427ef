-- One row per company and rule that writes check on a set of records no
-- unique key covers (see pgstore's rule_locks.go): writes run REPEATABLE
-- READ, and two that both write a rule's row cannot both commit. Company
-- 0 holds the rules of every company (company names, mailbox addresses).

-- +goose Up
CREATE TABLE rule_locks (
    company_id bigint NOT NULL,
    rule       text NOT NULL,
    taken      bigint NOT NULL,
    PRIMARY KEY (company_id, rule)
);

-- +goose Down
DROP TABLE rule_locks;
