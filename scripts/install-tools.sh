#!/usr/bin/env bash
# Installs the field tools the tests run for real (Debian packages, no recommends; mermaid-cli from npm, globally, on
# Debian's chromium). Does nothing when all are present.
set -euo pipefail
need=()
command -v packer >/dev/null || need+=(packer)
command -v cloud-init >/dev/null || need+=(cloud-init)
command -v systemd-analyze >/dev/null || need+=(systemd)
command -v docker-compose >/dev/null || need+=(docker-compose)
command -v yamllint >/dev/null || need+=(yamllint)
python3 -c "import yaml" 2>/dev/null || need+=(python3-yaml)
command -v chromium >/dev/null || need+=(chromium)
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
if [ ${#need[@]} -gt 0 ]; then
  echo "install-tools: installing ${need[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
# mermaid-cli renders the runbook's diagrams in the tests; it drives the chromium above (scripts/puppeteer-config.json),
# so puppeteer's own browser download is skipped.
if ! command -v mmdc >/dev/null; then
  echo "install-tools: installing @mermaid-js/mermaid-cli" >&2
  PUPPETEER_SKIP_DOWNLOAD=1 $sudo npm install --global --no-fund --no-audit @mermaid-js/mermaid-cli@11 >/dev/null
fi
