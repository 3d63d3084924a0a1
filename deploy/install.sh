#!/usr/bin/env bash
# Turns a Raspberry Pi (Raspberry Pi OS Bookworm) with a touchscreen, or any Debian-family machine,
# into a Table Companion kiosk: the app full screen from boot, restarted if it crashes.
#
#   sudo deploy/install.sh              install, or bring an existing install up to date
#   deploy/install.sh --dry-run         print every action it would take; change nothing
#   sudo deploy/install.sh --uninstall  remove what install.sh put in place (user data is kept)
#
# Every step first looks at what is there and acts only on a difference, so a second run changes
# nothing and says so. See deploy/README.md for the whole set-up and for the reasons behind each file.
set -euo pipefail
# Files and the virtualenv must be readable by the kiosk user whatever root's own umask is.
umask 022

DEPLOY=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(cd "$DEPLOY/.." && pwd)
UNIT_NAME=table-companion.service
DEFAULT_USER=companion
STATE_DIR=/var/lib/table-companion
CACHE_DIR=/var/cache/table-companion
ETC_DIR=/etc/table-companion
# Modules that grab the USB readers before nfcpy does (blacklist-nfc.conf says which and why).
GRABBING_MODULES="pn533_usb pn533 nfc port100"
# video, render: the display (/dev/dri); input: touchscreen and keypad; audio: the voice;
# dialout: serial readers and the hub; plugdev: USB readers (99-table-companion-readers.rules).
GROUPS_NEEDED="video render input audio dialout plugdev"
# What the kiosk needs on top of the companion's runtime packages (system-packages.sh):
# SDL2 draws through KMS/DRM with GBM and EGL/GLES from Mesa, so no X server or desktop is needed;
# python3-venv carries ensurepip, which Debian splits off from python3.
KIOSK_PACKAGES="python3 python3-venv libdrm2 libgbm1 libgles2 libegl-mesa0 libgl1-mesa-dri"

usage() {
  cat <<EOF
Usage: sudo $0 [options]

  --dry-run       print every action it would take and change nothing (no root needed)
  --uninstall     stop and remove the kiosk; keep the user, its data ($STATE_DIR)
                  and the Debian packages
  --user NAME     run the app as this existing user instead of the dedicated user '$DEFAULT_USER'
  --prefix DIR    where the virtualenv goes (default /opt/table-companion)
  --python PATH   the Python (3.11 or newer) that creates the virtualenv (default /usr/bin/python3)
  --root DIR      install the files under DIR as if it were / (packaging, tests); the machine
                  itself is left alone: no packages, users, groups, modules, udev or systemd
  --no-pip        create the virtualenv but do not install the companion into it
  --no-packages   leave the Debian packages alone (you manage them yourself)
  -h, --help      this help
EOF
}

ORIG_ARGS="$*"
DRY_RUN=0
UNINSTALL=0
ROOT=""
PREFIX=/opt/table-companion
RUN_USER=""
PYTHON=""
NO_PIP=0
NO_PACKAGES=0
while [ $# -gt 0 ]; do
  case "$1" in
    --dry-run) DRY_RUN=1 ;;
    --uninstall) UNINSTALL=1 ;;
    --no-pip) NO_PIP=1 ;;
    --no-packages) NO_PACKAGES=1 ;;
    --root|--prefix|--user|--python)
      [ $# -ge 2 ] || { echo "Error: $1 needs a value." >&2; exit 2; }
      case "$1" in
        --root) ROOT=$2 ;;
        --prefix) PREFIX=$2 ;;
        --user) RUN_USER=$2 ;;
        --python) PYTHON=$2 ;;
      esac
      shift ;;
    --root=*) ROOT=${1#*=} ;;
    --prefix=*) PREFIX=${1#*=} ;;
    --user=*) RUN_USER=${1#*=} ;;
    --python=*) PYTHON=${1#*=} ;;
    -h|--help) usage; exit 0 ;;
    *) echo "Error: unknown option '$1'." >&2; usage >&2; exit 2 ;;
  esac
  shift
done

die() { echo "Error: $*" >&2; exit 1; }

# Paths end up in sed expressions and in the unit file: keep them plain.
case "$PREFIX" in
  /*) ;;
  *) die "--prefix must be an absolute path (got '$PREFIX')." ;;
esac
[[ "$PREFIX" =~ ^[A-Za-z0-9._/+-]+$ ]] || die "--prefix may only hold letters, digits and . _ / + - (got '$PREFIX')."
while [ "${PREFIX%/}" != "$PREFIX" ]; do PREFIX=${PREFIX%/}; done
case "$PREFIX/" in
  */./*|*/../*|*//*) die "--prefix must be a plain path, without '.', '..' or '//' (got '$PREFIX')." ;;
esac
# System folders are never the prefix: uninstall would remove what they hold, which is not ours.
is_system_dir() {
  case "$1" in
    ""|/|/bin|/boot|/dev|/etc|/home|/lib|/lib32|/lib64|/libx32|/media|/mnt|/opt|/proc|/root|/run|/sbin|/srv|\
    /sys|/tmp|/usr|/usr/bin|/usr/lib|/usr/lib64|/usr/libexec|/usr/local|/usr/local/bin|/usr/local/lib|\
    /usr/local/share|/usr/sbin|/usr/share|/usr/src|/var|/var/cache|/var/lib|/var/local|/var/log|/var/opt|\
    /var/tmp|/etc/default|/etc/systemd|/etc/systemd/system|/etc/udev|/etc/udev/rules.d|/etc/modprobe.d)
      return 0 ;;
  esac
  return 1
}
is_system_dir "$PREFIX" && die "--prefix $PREFIX is a system folder: give a folder of its own, such as $PREFIX/table-companion."
# --root is a prefix for every path written; it need not exist yet (install -D and venv create it).
case "$ROOT" in
  "") ;;
  /*) ;;
  *) ROOT=$PWD/$ROOT ;;
esac
while [ "${ROOT%/}" != "$ROOT" ]; do ROOT=${ROOT%/}; done
SYSTEM=1  # act on this machine's packages, users, modules, udev and systemd
[ -n "$ROOT" ] && SYSTEM=0
if [ -n "$RUN_USER" ]; then
  [[ "$RUN_USER" =~ ^[a-z_][a-z0-9_-]*[$]?$ ]] || die "'$RUN_USER' is not a valid user name."
  [ "$RUN_USER" != root ] || die "the kiosk does not run as root; pick an unprivileged user."
else
  RUN_USER=$DEFAULT_USER
fi
if [ -z "$PYTHON" ]; then
  if [ -x /usr/bin/python3 ]; then PYTHON=/usr/bin/python3; else PYTHON=$(command -v python3 || true); fi
fi

if [ "$DRY_RUN" = 0 ] && [ "$SYSTEM" = 1 ] && [ "$(id -u)" != 0 ]; then
  die "run it as root: sudo $0 $ORIG_ARGS  (or see what it would do with --dry-run)"
fi

VENV=$PREFIX/venv
UNIT_DEST=/etc/systemd/system/$UNIT_NAME
ENV_DEST=/etc/default/table-companion
RULES_DEST=/etc/udev/rules.d/99-table-companion-readers.rules
BLACKLIST_DEST=/etc/modprobe.d/table-companion-nfc.conf
KIVY_DEST=$ETC_DIR/kivy-config.ini
KIVY_LINK=$STATE_DIR/kivy/config.ini
README_DEST=$PREFIX/README.md
CARDMAP_DEST=$PREFIX/cardmap
SOURCE_STAMP=$VENV/.table-companion-source
# What install.sh put in place, one path a line, read by --uninstall: it removes exactly these.
# Root's folder in /etc: the kiosk user, who owns the data folder, cannot add a path to it.
MANIFEST=$ETC_DIR/installed-paths
MANIFEST_NEW=()
record() { MANIFEST_NEW+=("$@"); }

WORK=$(mktemp -d)
trap 'rm -rf -- "$WORK"' EXIT

CHANGES=0
UNIT_CHANGED=0
RULES_CHANGED=0
WARNINGS=0

ok() { printf '  ok     %s\n' "$*"; }
skip() { printf '  skip   %s\n' "$*"; }
note() { printf '         %s\n' "$*"; }
warn() { WARNINGS=$((WARNINGS + 1)); printf '  warn   %s\n' "$*"; }

# change DESCRIPTION COMMAND...: the one place where anything is modified. A dry run prints the
# description and the exact command instead (or $SHOW, for a command that is a function here).
change() {
  local what=$1
  shift
  CHANGES=$((CHANGES + 1))
  if [ "$DRY_RUN" = 1 ]; then
    printf '  would  %s\n' "$what"
    if [ -n "${SHOW:-}" ]; then
      printf '           $ %s\n' "$SHOW"
    else
      printf '           $'
      printf ' %q' "$@"
      printf '\n'
    fi
    return 0
  fi
  printf '  do     %s\n' "$what"
  "$@"
}

have() { command -v "$1" >/dev/null 2>&1; }
systemd_running() { [ -d /run/systemd/system ] && have systemctl; }
user_exists() { id -u "$1" >/dev/null 2>&1; }

# --- Debian packages ---------------------------------------------------------------------------------------
step_packages() {
  local p pkgs missing=""
  pkgs="$(bash "$DEPLOY/system-packages.sh" --list-runtime) $KIOSK_PACKAGES"
  if [ "$SYSTEM" = 0 ]; then
    skip "Debian packages (--root: this machine's packages are left alone): $pkgs"
    return
  fi
  if [ "$NO_PACKAGES" = 1 ]; then
    skip "Debian packages (--no-packages): $pkgs"
    return
  fi
  if ! have dpkg-query; then
    warn "not a Debian-family system: install these (or their equivalents) yourself: $pkgs"
    return
  fi
  for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
  done
  if [ -z "$missing" ]; then
    ok "Debian packages: all present ($pkgs)"
    return
  fi
  change "update the package lists" apt-get update -qq
  # shellcheck disable=SC2086 # one word per package
  change "install Debian packages:$missing" \
    env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
}

# --- the user the app runs as ------------------------------------------------------------------------------
step_user() {
  if [ "$SYSTEM" = 0 ]; then
    skip "user '$RUN_USER' and its groups (--root)"
    return
  fi
  if user_exists "$RUN_USER"; then
    ok "user '$RUN_USER' exists"
  elif [ "$RUN_USER" = "$DEFAULT_USER" ]; then
    # A system user without a login: the kiosk runs nothing else, and someone at the table who
    # gets past the app finds no shell with their rights.
    change "create the system user '$RUN_USER' (no login, home $STATE_DIR)" \
      useradd --system --user-group --home-dir "$STATE_DIR" --no-create-home \
      --shell /usr/sbin/nologin --comment "Table Companion kiosk" "$RUN_USER"
  else
    die "user '$RUN_USER' does not exist (--user takes an existing user; leave it out for '$DEFAULT_USER')."
  fi
  local g have_groups=""
  user_exists "$RUN_USER" && have_groups=" $(id -nG "$RUN_USER") "
  for g in $GROUPS_NEEDED; do
    if ! getent group "$g" >/dev/null; then
      case "$g" in
        dialout|plugdev)  # the udev rules hand the readers to these two
          change "create the group '$g'" groupadd --system "$g" ;;
        *)
          skip "group '$g' does not exist on this system"
          continue ;;
      esac
    fi
    if [[ "$have_groups" == *" $g "* ]]; then
      ok "user '$RUN_USER' is in group '$g'"
    else
      change "add user '$RUN_USER' to group '$g'" usermod -aG "$g" "$RUN_USER"
    fi
  done
}

# The primary group, for the unit's Group= and the data directory.
run_group() {
  if user_exists "$RUN_USER"; then id -gn "$RUN_USER"; else echo "$RUN_USER"; fi
}

# --- files -------------------------------------------------------------------------------------------------
# install_file SOURCE DEST MODE [keep]: DEST (a path on the target system) gets SOURCE's content.
# With "keep", an existing DEST is the administrator's and stays as it is.
install_file() {
  local src=$1 dest=$2 mode=$3 keep=${4:-} target
  target=$ROOT$dest
  if [ -f "$target" ] && [ "$keep" = keep ]; then
    if cmp -s "$src" "$target"; then
      ok "$dest"
    else
      ok "$dest (kept: it holds your settings; compare with: diff $target $src)"
    fi
    return 1
  fi
  if [ -f "$target" ] && cmp -s "$src" "$target"; then
    if [ "$(stat -c %a "$target")" = "${mode#0}" ]; then
      ok "$dest"
      return 1
    fi
    change "set mode $mode on $dest" chmod "$mode" "$target"
    return 0
  fi
  local verb="install"
  [ -e "$target" ] && verb="update"
  change "$verb $dest" install -D -m "$mode" "$src" "$target"
  return 0
}

# make_dir DIR MODE [OWNER]: DIR on the target system, owned by OWNER (user:group) on a real install.
make_dir() {
  local dir=$1 mode=$2 owner=${3:-} target
  target=$ROOT$dir
  [ "$SYSTEM" = 0 ] && owner=""
  if [ -d "$target" ]; then
    if [ -z "$owner" ] || [ "$(stat -c %U:%G "$target")" = "$owner" ]; then
      ok "directory $dir"
      return
    fi
    change "give $dir to $owner" chown "$owner" "$target"
    return
  fi
  if [ -n "$owner" ]; then
    change "create directory $dir (owner $owner)" install -d -m "$mode" -o "${owner%%:*}" -g "${owner#*:}" "$target"
  else
    change "create directory $dir" install -d -m "$mode" "$target"
  fi
}

render_unit() {
  local group
  group=$(run_group)
  sed -e "s#/opt/table-companion#$PREFIX#g" \
      -e "s/^User=.*/User=$RUN_USER/" \
      -e "s/^Group=.*/Group=$group/" \
      "$DEPLOY/$UNIT_NAME" >"$WORK/$UNIT_NAME"
}

step_files() {
  local owner
  owner="$RUN_USER:$(run_group)"
  render_unit
  record "$UNIT_DEST" "$ENV_DEST" "$RULES_DEST" "$BLACKLIST_DEST" "$KIVY_DEST" "$ETC_DIR" "$KIVY_LINK"
  if install_file "$WORK/$UNIT_NAME" "$UNIT_DEST" 0644; then UNIT_CHANGED=1; fi
  install_file "$DEPLOY/table-companion.env" "$ENV_DEST" 0644 keep || true
  if install_file "$DEPLOY/99-table-companion-readers.rules" "$RULES_DEST" 0644; then RULES_CHANGED=1; fi
  install_file "$DEPLOY/blacklist-nfc.conf" "$BLACKLIST_DEST" 0644 || true
  install_file "$DEPLOY/kivy-config.ini" "$KIVY_DEST" 0644 || true
  make_dir "$STATE_DIR" 0750 "$owner"
  make_dir "$STATE_DIR/kivy" 0750 "$owner"
  make_dir "$CACHE_DIR" 0750 "$owner"
  # Kivy only reads $KIVY_HOME/config.ini, and KIVY_HOME has to be writable (Kivy puts icons there):
  # a link keeps the configuration itself in /etc with the rest.
  local link=$ROOT$KIVY_LINK
  if [ -L "$link" ] && [ "$(readlink "$link")" = "$KIVY_DEST" ]; then
    ok "$KIVY_LINK -> $KIVY_DEST"
  else
    if [ -e "$link" ] || [ -L "$link" ]; then note "$KIVY_LINK is replaced by a link to $KIVY_DEST"; fi
    change "link $KIVY_LINK -> $KIVY_DEST" ln -sfn "$KIVY_DEST" "$link"
  fi
}

# --- the virtualenv and the companion in it ----------------------------------------------------------------
# tree_hash DIR: one hash over the names and contents of the files under DIR.
tree_hash() {
  (cd "$1" && find . -type f ! -path '*/__pycache__/*' -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum) |
    sha256sum | cut -d' ' -f1
}

# copy_tree SOURCE DEST: DEST becomes a copy of SOURCE (files gone from SOURCE go from DEST too).
# shellcheck disable=SC2317 # called through change()
copy_tree() {
  rm -rf -- "$2.new"
  mkdir -p "$(dirname "$2")"
  cp -r -- "$1" "$2.new"
  find "$2.new" -name __pycache__ -prune -exec rm -rf {} +
  rm -rf -- "$2"
  mv -- "$2.new" "$2"
}

source_hash() {
  local f
  (
    cd "$SRC"
    for f in pyproject.toml README.md setup.py setup.cfg; do [ -f "$f" ] && sha256sum "$f"; done
    find companion -type f ! -path '*/__pycache__/*' ! -name '*.py[co]' -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum
  ) | sha256sum | cut -d' ' -f1
}

# shellcheck disable=SC2317 # called through change()
pip_install() {
  local venv=$1 copy=$WORK/source
  # pip builds in the source tree; a copy keeps root-owned build files out of the checkout.
  mkdir -p "$copy"
  tar -C "$SRC" --exclude=__pycache__ --exclude='*.egg-info' -cf - \
    pyproject.toml README.md companion | tar -C "$copy" -xf -
  "$venv/bin/python" -m pip install --disable-pip-version-check --no-input --quiet --upgrade "$copy"
  source_hash >"$ROOT$SOURCE_STAMP"
}

step_venv() {
  local venv=$ROOT$VENV
  if [ -d "$ROOT$PREFIX" ] && ! { [ -f "$ROOT$MANIFEST" ] && grep -qx -- "$PREFIX" "$ROOT$MANIFEST"; }; then
    # A folder that was there before us (or made by an earlier run, which recorded it): only
    # what we put inside it is ours.
    record "$VENV" "$CARDMAP_DEST" "$README_DEST"
  else
    record "$PREFIX"
  fi
  make_dir "$PREFIX" 0755
  install_file "$DEPLOY/README.md" "$README_DEST" 0644 || true
  # The games' data is read from cardmap/ beside the package, which pip does not install: the unit
  # points COMPANION_CARDMAP at this copy.
  if [ -d "$ROOT$CARDMAP_DEST" ] && [ "$(tree_hash "$ROOT$CARDMAP_DEST")" = "$(tree_hash "$SRC/cardmap")" ]; then
    ok "game data $CARDMAP_DEST matches $SRC/cardmap"
  else
    local verb=install
    [ -e "$ROOT$CARDMAP_DEST" ] && verb=update
    SHOW="cp -r $SRC/cardmap $ROOT$CARDMAP_DEST" \
      change "$verb the game data $CARDMAP_DEST" copy_tree "$SRC/cardmap" "$ROOT$CARDMAP_DEST"
  fi
  if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c 'import sys' 2>/dev/null; then
    ok "virtualenv $VENV"
  else
    [ -n "$PYTHON" ] || die "no python3 found: install python3 (or give --python PATH)."
    if [ -x "$PYTHON" ] || have "$PYTHON"; then
      "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' ||
        die "$PYTHON is older than Python 3.11; give a newer one with --python PATH."
    elif [ "$DRY_RUN" = 0 ]; then
      die "$PYTHON not found: install python3 (or give --python PATH)."
    fi
    if [ -e "$venv" ]; then
      change "remove the broken virtualenv $VENV" rm -rf -- "$venv"
    fi
    if [ "$NO_PIP" = 1 ]; then
      change "create the virtualenv $VENV (without pip: --no-pip)" "$PYTHON" -m venv --without-pip "$venv"
    else
      change "create the virtualenv $VENV" "$PYTHON" -m venv "$venv"
    fi
  fi
  if [ "$NO_PIP" = 1 ]; then
    skip "the companion in the virtualenv (--no-pip)"
    return
  fi
  if [ -f "$ROOT$SOURCE_STAMP" ] && [ "$(cat "$ROOT$SOURCE_STAMP")" = "$(source_hash)" ]; then
    ok "the companion in $VENV matches $SRC"
    return
  fi
  if [ -x "$venv/bin/python" ] && ! "$venv/bin/python" -m pip --version >/dev/null 2>&1; then
    change "put pip into $VENV" "$venv/bin/python" -m ensurepip --upgrade
  fi
  SHOW="$venv/bin/python -m pip install --upgrade <a copy of $SRC: pyproject.toml README.md companion/>" \
    change "install the companion from $SRC into $VENV (pip; needs the network the first time)" \
    pip_install "$venv"
}

# The manifest: what this run installed, with what earlier runs recorded.
# shellcheck disable=SC2317 # called through change()
write_manifest() { install -D -m 0644 "$1" "$ROOT$MANIFEST"; }

step_manifest() {
  local list=$WORK/installed-paths
  {
    echo "# Paths table-companion's install.sh put in place; install.sh --uninstall removes exactly these."
    { [ -f "$ROOT$MANIFEST" ] && grep '^/' "$ROOT$MANIFEST"; printf '%s\n' "${MANIFEST_NEW[@]}"; } | LC_ALL=C sort -u
  } >"$list"
  if [ -f "$ROOT$MANIFEST" ] && cmp -s "$list" "$ROOT$MANIFEST"; then
    ok "list of installed paths $MANIFEST"
    return
  fi
  SHOW="install -m 0644 <${#MANIFEST_NEW[@]} paths> $ROOT$MANIFEST" \
    change "record the installed paths in $MANIFEST" write_manifest "$list"
}

# --- kernel modules, udev, systemd -------------------------------------------------------------------------
step_modules() {
  local m loaded=""
  if [ "$SYSTEM" = 0 ]; then skip "kernel modules (--root)"; return; fi
  for m in $GRABBING_MODULES; do
    grep -q "^$m " /proc/modules 2>/dev/null && loaded="$loaded $m"
  done
  if [ -z "$loaded" ]; then
    ok "no NFC kernel module loaded ($GRABBING_MODULES)"
    return
  fi
  # shellcheck disable=SC2086 # one word per module
  if ! change "unload the kernel modules that grab the readers:$loaded" modprobe -r $loaded; then
    warn "could not unload$loaded (a reader is in use?); the blacklist takes effect at the next reboot"
  fi
}

step_udev() {
  if [ "$SYSTEM" = 0 ]; then skip "udev reload (--root)"; return; fi
  if ! have udevadm; then skip "udev reload (udevadm not found)"; return; fi
  if [ "$RULES_CHANGED" = 0 ]; then
    ok "udev rules loaded"
    return
  fi
  change "reload the udev rules" udevadm control --reload
  change "apply them to the readers already plugged in" \
    udevadm trigger --action=change --subsystem-match=usb --subsystem-match=tty
}

step_systemd() {
  if [ "$SYSTEM" = 0 ]; then skip "systemd: enable $UNIT_NAME (--root)"; return; fi
  if ! have systemctl; then warn "systemctl not found: start the app by hand (see deploy/README.md)"; return; fi
  if [ "$UNIT_CHANGED" = 1 ] && systemd_running; then
    change "reload systemd's units" systemctl daemon-reload
  fi
  if [ "$(systemctl is-enabled "$UNIT_NAME" 2>/dev/null || true)" = enabled ]; then
    ok "$UNIT_NAME enabled at boot"
  else
    change "start $UNIT_NAME at boot" systemctl enable --quiet "$UNIT_NAME"
  fi
  if systemd_running && [ "$(systemctl is-enabled display-manager.service 2>/dev/null || true)" = enabled ]; then
    warn "a desktop (display manager) starts at boot and would hold the display. Boot to the console:"
    note "sudo systemctl set-default multi-user.target   (on a Pi: sudo raspi-config nonint do_boot_behaviour B1)"
  fi
}

# --- uninstall ---------------------------------------------------------------------------------------------
remove_path() {
  local path=$1 target=$ROOT$1
  if [ -e "$target" ] || [ -L "$target" ]; then
    change "remove $path" rm -rf -- "$target"
    return 0
  fi
  ok "$path is not there"
  return 1
}

uninstall() {
  if [ "$SYSTEM" = 1 ] && have systemctl; then
    local enabled active
    enabled=$(systemctl is-enabled "$UNIT_NAME" 2>/dev/null || true)
    active=$(systemctl is-active "$UNIT_NAME" 2>/dev/null || true)
    if [ "$active" = active ]; then
      change "stop $UNIT_NAME" systemctl stop "$UNIT_NAME"
    fi
    if [ "$enabled" = enabled ]; then
      change "do not start $UNIT_NAME at boot" systemctl disable --quiet "$UNIT_NAME"
    elif [ "$active" != active ]; then
      ok "$UNIT_NAME is neither enabled nor running"
    fi
  fi
  local unit_removed=0 rules_removed=0 path paths kept_env=0
  if [ -f "$ROOT$MANIFEST" ]; then
    # Deepest first, so that a folder's own files go before it.
    paths=$(grep '^/' "$ROOT$MANIFEST" | LC_ALL=C sort -ru)
  else
    # Installed before the manifest existed: our own files by name, and in the prefix only what we
    # put there (the prefix itself goes only if that leaves it empty).
    note "no $MANIFEST: removing the files install.sh puts in place by name"
    paths=$(printf '%s\n' "$UNIT_DEST" "$ENV_DEST" "$RULES_DEST" "$BLACKLIST_DEST" "$KIVY_DEST" "$KIVY_LINK" \
      "$VENV" "$CARDMAP_DEST" "$README_DEST")
  fi
  while IFS= read -r path; do
    [ -n "$path" ] || continue
    if [ "$path" = "$MANIFEST" ]; then continue; fi
    case "$path/" in
      */./*|*/../*|*//*) warn "not removing '$path' (listed in $MANIFEST, but not a plain path)"; continue ;;
    esac
    if is_system_dir "$path" || [ "${path#/}" = "$path" ]; then
      warn "not removing '$path' (listed in $MANIFEST, but a system folder)"
      continue
    fi
    if [ "$path" = "$ENV_DEST" ] && [ -f "$ROOT$ENV_DEST" ] && ! cmp -s "$DEPLOY/table-companion.env" "$ROOT$ENV_DEST"; then
      ok "$ENV_DEST kept: it holds your settings (remove it by hand if you want)"
      kept_env=1
      continue
    fi
    if [ "$path" = "$ETC_DIR" ]; then
      continue  # last, once the manifest in it has been used
    fi
    if remove_path "$path"; then
      [ "$path" = "$UNIT_DEST" ] && unit_removed=1
      [ "$path" = "$RULES_DEST" ] && rules_removed=1
    fi
  done <<<"$paths"
  if [ ! -f "$ROOT$MANIFEST" ] && [ -d "$ROOT$PREFIX" ] && [ -z "$(ls -A "$ROOT$PREFIX")" ]; then
    change "remove the empty folder $PREFIX" rmdir -- "$ROOT$PREFIX"
  fi
  remove_path "$ETC_DIR" || true
  [ "$kept_env" = 1 ] && note "$ENV_DEST is yours now; the next install keeps it."
  if [ "$SYSTEM" = 1 ]; then
    if [ "$unit_removed" = 1 ] && systemd_running; then
      change "reload systemd's units" systemctl daemon-reload
      change "bring back the login prompt on tty1" systemctl start getty@tty1.service
    fi
    if [ "$rules_removed" = 1 ] && have udevadm; then
      change "reload the udev rules" udevadm control --reload
    fi
  fi
  note "Kept: the data in $STATE_DIR, the user '$RUN_USER', the Debian packages. To remove them too:"
  note "sudo rm -rf $STATE_DIR $CACHE_DIR && sudo userdel $RUN_USER"
}

# --- main --------------------------------------------------------------------------------------------------
title="Table Companion kiosk: $([ "$UNINSTALL" = 1 ] && echo uninstall || echo install)"
[ -n "$ROOT" ] && title="$title under $ROOT"
[ "$DRY_RUN" = 1 ] && title="$title (dry run: nothing will be changed)"
echo "$title"

if [ "$UNINSTALL" = 1 ]; then
  uninstall
else
  if [ ! -f "$SRC/pyproject.toml" ] || [ ! -d "$SRC/companion" ]; then
    die "$SRC does not look like the table-companion checkout (no pyproject.toml or companion/)."
  fi
  step_packages
  step_user
  step_files
  step_venv
  step_manifest
  step_modules
  step_udev
  step_systemd
fi

echo
if [ "$CHANGES" = 0 ]; then
  echo "Nothing to do: everything is already in place."
elif [ "$DRY_RUN" = 1 ]; then
  echo "Dry run: $CHANGES change(s) would be made; nothing was changed."
elif [ "$UNINSTALL" = 1 ]; then
  echo "Done: $CHANGES change(s). The kiosk is removed."
else
  echo "Done: $CHANGES change(s)."
  if [ "$SYSTEM" = 1 ]; then
    if systemd_running && [ "$(systemctl is-active "$UNIT_NAME" 2>/dev/null || true)" = active ]; then
      echo "Restarting the running app so that it uses the new version."
      systemctl restart "$UNIT_NAME"
    else
      echo "Reboot to start the kiosk (or now: sudo systemctl start $UNIT_NAME)."
    fi
    echo "Reader and language: $ENV_DEST. Logs: journalctl -u table-companion -b"
  fi
fi
[ "$WARNINGS" = 0 ] || echo "$WARNINGS warning(s) above."
exit 0
