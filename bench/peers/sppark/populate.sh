#!/usr/bin/env bash
# Extracts the parts of supranational/sppark this peer driver builds (ff/, ntt/, util/) into the
# git-ignored .peers/sppark, from the git directory the workplace's `fetch github:supranational/sppark`
# gives (run here, before a device call that carries .peers). Never committed, never linked into snarkd.
#   bash bench/peers/sppark/populate.sh [GIT_DIR] [COMMIT]
set -euo pipefail
git_dir=${1:-/work/.mirror/supranational+sppark/repo}
commit=${2:-17278d74295392f9813f009300b257a688422b7a}
root=$(git rev-parse --show-toplevel)
out="$root/.peers/sppark"
rm -rf "$out" && mkdir -p "$out"
git --git-dir="$git_dir" archive "$commit" ff ntt util | tar -x -C "$out"
echo "sppark $commit: $(find "$out" -type f | wc -l) files in $out"
