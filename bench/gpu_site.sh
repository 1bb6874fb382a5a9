#!/usr/bin/env bash
# xmux's Python dependencies for a GPU machine without a package index (the lent H100/H200:
# Python 3.12, CuPy, PyTorch and numpy installed; no xdsl, llvmlite, lit, pytest).
#
#   bash bench/gpu_site.sh pack    # here, with network: writes .wheels/devsite.tar.xz and
#                                  # .wheels/setup.sh (.wheels/ is ignored by git)
#   bash .wheels/setup.sh          # there, in the checkout: unpacks into /tmp/x/site and
#                                  # installs xmux editable; then export PYTHONPATH=/tmp/x/site
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
  pack)
    work=$(mktemp -d)
    python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
      --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
      --platform manylinux2014_x86_64 -d "$work/wheels" \
      "xdsl==0.74.*" "llvmlite==0.50.*" filecheck lit pytest pytest-xdist execnet iniconfig \
      pluggy packaging immutabledict ordered-set typing-extensions
    mkdir -p "$work/site"
    for w in "$work"/wheels/*.whl; do python3 -m zipfile -e "$w" "$work/site"; done
    mkdir -p .wheels
    tar -cJf .wheels/devsite.tar.xz -C "$work" site
    cat > .wheels/setup.sh <<'SETUP'
set -e
mkdir -p /tmp/x && tar -xJf .wheels/devsite.tar.xz -C /tmp/x
export PYTHONPATH=/tmp/x/site
python3 -m pip install --no-index --no-deps --no-build-isolation -e . -q 2>&1 | tail -2
SETUP
    rm -rf "$work"
    ls -l .wheels/devsite.tar.xz
    ;;
  *)
    echo "usage: bash bench/gpu_site.sh pack" >&2
    exit 2
    ;;
esac
