#!/usr/bin/env bash
# Installs the Debian packages the test suite runs for real: etcd (storage backend tests),
# tinyproxy (HTTP CONNECT egress tests), the Python kubernetes client for /usr/bin/python3 (its
# end-to-end tests), openssl and curl (the CA rotation walk-through of docs/trust-distribution.md,
# the apiserver unit's readiness check), systemd-analyze (checks deploy/systemd's units) and, where
# none is installed, kubectl (end-to-end tests).
# Idempotent; needs root (CI and the dev machines run as root) and Debian's package mirrors.
set -euo pipefail
need=()
command -v etcd >/dev/null 2>&1 || need+=(etcd-server)
command -v tinyproxy >/dev/null 2>&1 || need+=(tinyproxy)
command -v openssl >/dev/null 2>&1 || need+=(openssl)
command -v curl >/dev/null 2>&1 || need+=(curl)
command -v systemd-analyze >/dev/null 2>&1 || need+=(systemd)
command -v kubectl >/dev/null 2>&1 || need+=(kubernetes-client)
/usr/bin/python3 -c 'import kubernetes' >/dev/null 2>&1 || need+=(python3-kubernetes)
if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "install-system-packages: not root, cannot install ${need[*]}; the tests that need them will say so" >&2
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
