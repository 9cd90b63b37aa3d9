#!/usr/bin/env bash
# Installs the Debian packages the test suite runs for real: etcd (storage backend tests),
# tinyproxy (HTTP CONNECT egress tests), the Python kubernetes client for /usr/bin/python3 (its
# end-to-end tests), openssl and curl (the CA rotation walk-through of docs/trust-distribution.md,
# the apiserver unit's readiness check),
# promtool and prometheus (the alert rules and the expiry walk-through there; on a host with systemd
# the package also enables prometheus.service, while the tests start their own on a free port),
# Java 17's keytool and java (the JKS and PKCS#12 truststores are read by them in the tests),
# systemd-analyze (checks deploy/systemd's units) and, where none is installed, kubectl (end-to-end tests).
# Idempotent; needs root (CI and the dev machines run as root) and Debian's package mirrors.
set -euo pipefail
need=()
command -v etcd >/dev/null 2>&1 || need+=(etcd-server)
command -v tinyproxy >/dev/null 2>&1 || need+=(tinyproxy)
command -v openssl >/dev/null 2>&1 || need+=(openssl)
command -v curl >/dev/null 2>&1 || need+=(curl)
command -v promtool >/dev/null 2>&1 || need+=(prometheus)
{ command -v keytool && command -v java; } >/dev/null 2>&1 || need+=(openjdk-17-jre-headless)
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
