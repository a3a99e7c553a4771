#!/usr/bin/env bash
# Installs the field tools the tests run for real (Debian packages, no recommends). Does nothing when all are present.
set -euo pipefail
need=()
command -v packer >/dev/null || need+=(packer)
command -v cloud-init >/dev/null || need+=(cloud-init)
command -v systemd-analyze >/dev/null || need+=(systemd)
command -v docker-compose >/dev/null || need+=(docker-compose)
command -v yamllint >/dev/null || need+=(yamllint)
[ ${#need[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
echo "install-tools: installing ${need[*]}" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
