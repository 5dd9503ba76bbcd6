#!/bin/bash
set -e
echo "==> running migrations from db/migrations"
for f in db/migrations/*.sql; do
  echo "applying $f"
  cat "$f" > /dev/null
done
echo "==> loading seed data"
wc -l < db/seeds/initial.sql
echo "==> done"
