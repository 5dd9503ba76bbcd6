#!/bin/bash
set -e
version=$(cat VERSION)
echo "==> release notes for ${version}"
echo "==> checking CHANGELOG.md has a section for ${version}"
grep -q "^## ${version}" CHANGELOG.md
echo "==> changelog ok"
