CREATE TABLE plans (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
INSERT INTO plans (name) VALUES ('team');
INSERT INTO subscriptions (plan_id) VALUES (1);
