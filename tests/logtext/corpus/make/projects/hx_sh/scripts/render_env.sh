#!/usr/bin/env bash
set -e
echo "rendering config for ${STAGE:-dev}"
sed -e "s/@STAGE@/${STAGE:-dev}/g" -e "s/@URL@/https://api.example.com/g" config.tmpl > config.env
cat config.env
