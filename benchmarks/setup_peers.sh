#!/usr/bin/env bash
# Install the peer tools the benchmarks compare against, from Debian's packages:
#   r-base-core    R (Rscript), to export the mlbench data and run rpart
#   r-cran-mlbench the mlbench data sets (HouseVotes84, Soybean, BreastCancer, ...)
#   r-cran-rpart   rpart, R's CART with surrogate splits
#   weka           Weka (J48, Quinlan's C4.5 release 8 in Java)
# Idempotent: packages already installed are left alone; nothing runs when all are there.
# Needs root (or sudo) and apt. Usage: bash benchmarks/setup_peers.sh
set -euo pipefail

PACKAGES=(r-base-core r-cran-mlbench r-cran-rpart weka)

if ! command -v apt-get >/dev/null 2>&1; then
    echo "setup_peers: apt-get not found; install ${PACKAGES[*]} by other means." >&2
    exit 1
fi

missing=()
for pkg in "${PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$pkg")
    fi
done

if [ ${#missing[@]} -eq 0 ]; then
    echo "setup_peers: already installed: ${PACKAGES[*]}"
    exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
echo "setup_peers: installing ${missing[*]}"
# A fresh machine may have no package lists yet: update once and retry on failure.
if ! $SUDO apt-get install -y --no-install-recommends "${missing[@]}"; then
    $SUDO apt-get update
    $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
fi
echo "setup_peers: done"
