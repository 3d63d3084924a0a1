#!/usr/bin/env bash
# Installs the Debian packages the companion needs, only those missing.
# Used by the Makefile (make run / make test) and by deploy/install.sh.
# As root it installs; with password-less sudo it uses sudo; otherwise it prints
# the exact apt-get line and exits 1, so nothing half-works silently.
set -eu
# runtime: what the companion itself uses; testing: what `make test` adds (sox measures the speech,
# xvfb gives the window tests a display, shellcheck checks deploy/*.sh). The kiosk takes runtime only.
# chromium: the phone page's browser tests drive Debian's own build (never a downloaded one);
# chromium-headless-shell, its headless shell (same engine), when installed: half Chromium's CPU in them.
# nodejs: runs real MicroPython (its WebAssembly port, from npm) on the hub firmware in make test.
# mosquitto: the venue hub's MQTT broker (python -m companion venue starts its own; an organiser's
# machine installs it, a table's kiosk does not need it).
# heaptrack: `bench memory` tells the software renderer's heap from ours with it (a machine with no
# GPU draws the window through Mesa's llvmpipe, whose heap a GPU keeps in its own memory).
# xclip: Kivy looks for it (or xsel) for text fields on Linux and logs a critical error without it.
runtime="espeak-ng libgl1 libegl1 libusb-1.0-0 libmtdev1 xclip"
testing="sox xvfb shellcheck chromium chromium-headless-shell nodejs mosquitto heaptrack"
pkgs="$runtime $testing"
[ "${1:-}" = "--list" ] && { echo "$pkgs"; exit 0; }
[ "${1:-}" = "--list-runtime" ] && { echo "$runtime"; exit 0; }
command -v dpkg-query >/dev/null 2>&1 || {
  echo "Not a Debian-family system: install espeak-ng, OpenGL/EGL, libusb-1.0 yourself." >&2
  exit 0
}
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
  SUDO=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  SUDO="sudo"
else
  echo "Missing system packages:$missing" >&2
  echo "Install them with:  sudo apt-get install -y$missing" >&2
  exit 1
fi
echo "Installing system packages:$missing"
$SUDO apt-get update -qq
# shellcheck disable=SC2086 # one word per package
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
