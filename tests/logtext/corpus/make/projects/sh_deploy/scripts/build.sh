#!/bin/bash
# Build the release tarball.
set -euo pipefail
echo "==> building release $(cat VERSION)"
mkdir -p dist
for f in README.md VERSION; do
  cp "$f" dist/
done
echo "==> copying assets"
cp -r assets/* dist/ 2>/dev/null || echo "warning: no assets to copy"
tar -czf "dist/release-$(cat VERSION).tar.gz" -C dist README.md VERSION
echo "==> release built: dist/release-$(cat VERSION).tar.gz"
