#!/usr/bin/env bash
# Makes sure a Docker engine answers: installs Debian's docker.io and starts dockerd when needed.
# Idempotent: does nothing when `docker info` already works.
set -euo pipefail

LOG_FILE="${POLAR_DOCKERD_LOG:-/var/log/polar-dockerd.log}"
TIMEOUT_S="${POLAR_DOCKERD_TIMEOUT:-60}"

if docker info >/dev/null 2>&1; then
  echo "ensure-docker: Docker engine already answers"
  exit 0
fi

if ! command -v dockerd >/dev/null 2>&1 || ! command -v docker >/dev/null 2>&1; then
  echo "ensure-docker: installing docker.io from Debian"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update
  apt-get install -y docker.io
fi

if ! pgrep -x dockerd >/dev/null 2>&1; then
  echo "ensure-docker: starting dockerd (log: $LOG_FILE)"
  mkdir -p "$(dirname "$LOG_FILE")"
  nohup dockerd --bridge=none --iptables=false >>"$LOG_FILE" 2>&1 &
fi

for ((i = 0; i < TIMEOUT_S; i++)); do
  if docker info >/dev/null 2>&1; then
    echo "ensure-docker: Docker engine answers after ${i}s"
    exit 0
  fi
  sleep 1
done

echo "ensure-docker: FAILED: no Docker engine answered within ${TIMEOUT_S}s" >&2
echo "ensure-docker: last lines of $LOG_FILE:" >&2
tail -n 30 "$LOG_FILE" >&2 || true
exit 1
