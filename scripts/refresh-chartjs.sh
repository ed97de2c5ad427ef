#!/bin/sh
# Refreshes the vendored Chart.js that the reports dashboard (/reports)
# serves, from the npm package `chart.js`: its UMD build and its licence go
# to dashboard/assets/. The Go build never runs npm: the files are committed
# and embedded. Usage: scripts/refresh-chartjs.sh [VERSION]   (default 4.6.1)
set -eu
version=${1:-4.6.1}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --loglevel=error "chart.js@$version" >/dev/null && tar xzf chart.js-*.tgz)
cp "$tmp/package/dist/chart.umd.js" "$root/dashboard/assets/chart.umd.js"
cp "$tmp/package/LICENSE.md" "$root/dashboard/assets/chart.LICENSE.md"
echo "dashboard/assets: chart.js $version"
