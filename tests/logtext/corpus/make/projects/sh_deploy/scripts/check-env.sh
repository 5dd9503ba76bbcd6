#!/bin/bash
set -u
echo "==> environment check"
echo "node: $(command -v node || echo missing)"
echo "user: ${USER:-ci}"
echo "target: ${RELEASE_TARGET}"
echo "ok"
