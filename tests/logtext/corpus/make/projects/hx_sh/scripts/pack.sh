#!/usr/bin/env bash
set -e
echo "packing release"
tar czf release.tar.gz dist/ README.md
echo "packed"
