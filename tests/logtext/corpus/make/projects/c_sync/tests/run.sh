#!/bin/sh
set -e
out=$(./syncd)
echo "$out"
echo "$out" | grep -q "synced 2 entries" || { echo "FAIL: expected 2 entries synced"; exit 1; }
echo "$out" | grep -q "cache 40 bytes" || { echo "FAIL: expected cache of 40 bytes"; exit 1; }
echo "PASS: all checks"
