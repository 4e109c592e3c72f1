#!/usr/bin/env bash
# Builds the SWE-bench-shaped image the tool-time recorder runs in (tool-image/Dockerfile): Django, SymPy and
# Pylint from Debian's source packages on polar's offline test base image. No registry pull: the base image is
# built locally by .ci/build-test-image.sh and the packages come from Debian's mirror. Cached by tag.
# Usage: bash test/bench/workload/build-tool-image.sh   (env POLAR_BENCH_TOOL_IMAGE, POLAR_TEST_IMAGE)
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
TAG="${POLAR_BENCH_TOOL_IMAGE:-polar-bench/swe-tools:bookworm}"
BASE="${POLAR_TEST_IMAGE:-polar-test/base:bookworm}"

if docker image inspect "$TAG" >/dev/null 2>&1; then
  echo "$TAG present"
  exit 0
fi
if ! docker image inspect "$BASE" >/dev/null 2>&1; then
  bash "$HERE/../../../.ci/build-test-image.sh"
fi
# The build's RUN steps reach Debian's mirror through the host's network (the engine may run without a bridge).
DOCKER_BUILDKIT=0 docker build --network host --build-arg "BASE=$BASE" -t "$TAG" "$HERE/tool-image"
echo "$TAG ($(docker image inspect --format '{{.Size}}' "$TAG" | awk '{printf "%.0f MB", $1/1e6}'))"
