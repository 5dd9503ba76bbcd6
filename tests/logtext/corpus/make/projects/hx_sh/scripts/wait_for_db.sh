#!/usr/bin/env bash
# Wait for the database the integration tests need.
host=${DB_HOST:-localhost}; port=${DB_PORT:-5432}
for attempt in 1 2 3; do
    echo "waiting for postgres at $host:$port (attempt $attempt/3)"
    if (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null; then
        echo "postgres is up"
        exit 0
    fi
    sleep 1
done
echo "gave up: postgres at $host:$port did not accept connections after 3 attempts"
exit 1
