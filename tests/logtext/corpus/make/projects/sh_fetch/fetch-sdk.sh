#!/bin/sh
set -e
SDK_VERSION=3.4.1
echo "fetching acme-sdk ${SDK_VERSION}"
curl -fsSL --retry 2 --retry-delay 1 -o /tmp/acme-sdk.tar.gz "https://artifacts.acme.example/sdk/acme-sdk-${SDK_VERSION}.tar.gz"
tar -xzf /tmp/acme-sdk.tar.gz -C vendor/
