#!/usr/bin/env bash
# Builds polar's small offline test base image (Debian bookworm minbase + git, python3,
# ca-certificates) with debootstrap and `docker import`. Cached by tag: skips when the tag exists.
set -euo pipefail

TAG="${POLAR_TEST_IMAGE:-polar-test/base:bookworm}"
SUITE="${POLAR_TEST_SUITE:-bookworm}"
MIRROR="${POLAR_DEBIAN_MIRROR:-}"   # empty: debootstrap's default mirror
PACKAGES="git,python3,ca-certificates"

if docker image inspect "$TAG" >/dev/null 2>&1; then
  echo "build-test-image: $TAG already exists, skipping"
  exit 0
fi

if ! command -v debootstrap >/dev/null 2>&1; then
  echo "build-test-image: installing debootstrap"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update
  apt-get install -y debootstrap
fi

WORK="$(mktemp -d /var/tmp/polar-rootfs.XXXXXX)"
cleanup() { rm -rf "$WORK"; }
trap cleanup EXIT
ROOT="$WORK/rootfs"

echo "build-test-image: debootstrap $SUITE into $ROOT"
# shellcheck disable=SC2086
debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$ROOT" $MIRROR

echo "build-test-image: stripping caches, docs and locales"
rm -rf "$ROOT"/var/cache/apt/archives/*.deb "$ROOT"/var/cache/apt/*.bin \
  "$ROOT"/var/lib/apt/lists/* "$ROOT"/var/log/* "$ROOT"/tmp/* "$ROOT"/var/tmp/* \
  "$ROOT"/usr/share/doc/* "$ROOT"/usr/share/man/* "$ROOT"/usr/share/info/* \
  "$ROOT"/usr/share/locale/* "$ROOT"/var/cache/debconf/*-old
find "$ROOT"/usr/lib/python3* -name '__pycache__' -type d -prune -exec rm -rf {} + 2>/dev/null || true

echo "build-test-image: importing as $TAG"
tar --numeric-owner -C "$ROOT" -c . | docker import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV LANG=C.UTF-8' \
  --change 'CMD ["/bin/bash"]' \
  --change 'LABEL dev.polar.test-image=true' \
  - "$TAG"

docker image ls "$TAG"
