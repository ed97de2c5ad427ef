#!/bin/sh
# Refreshes the vendored Redoc bundle that /docs serves (api/docs), from the
# npm package `redoc`. The Go build never runs npm: the bundle is committed.
# Usage: scripts/refresh-redoc.sh [VERSION]   (default 2.5.4)
set -eu
version=${1:-2.5.4}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack "redoc@$version" >/dev/null && tar xzf redoc-*.tgz)
cp "$tmp/package/bundles/redoc.standalone.js" "$tmp/package/bundles/redoc.standalone.js.LICENSE.txt" "$root/api/docs/"
echo "api/docs: redoc $version"
