# Shared by scripts/run and scripts/test: say what is happening, and install
# what is missing (Debian/Ubuntu packages as root or through sudo).

# Each line carries the clock, so a CI log shows where its time went.
say() { printf '\033[1m==> [%s] %s\033[0m\n' "$(date +%H:%M:%S)" "$*"; }

# Cargo from rustup lives in ~/.cargo/bin, which a non-login shell may not have on PATH.
if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
  export PATH="$HOME/.cargo/bin:$PATH"
fi

require_cargo() {
  if ! command -v cargo >/dev/null 2>&1; then
    echo "Redline needs a Rust toolchain (1.88 or newer) with cargo: see https://rustup.rs" >&2
    exit 1
  fi
}

# apt_install PACKAGE COMMAND...: installs PACKAGE unless every COMMAND exists.
apt_install() {
  local package=$1 missing=0
  shift
  for cmd in "$@"; do command -v "$cmd" >/dev/null 2>&1 || missing=1; done
  [ "$missing" = 0 ] && return 0
  local sudo=""
  if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
      echo "Missing '$package' and not root (no sudo either): install it with apt-get." >&2
      exit 1
    fi
  fi
  say "Installing system package: $package"
  if [ -z "${REDLINE_APT_UPDATED:-}" ]; then
    $sudo apt-get update -qq
    export REDLINE_APT_UPDATED=1
  fi
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$package" >/dev/null
}

# The engine links no system library (rustls with ring for HTTPS, zbus for
# the keychain); building it needs only a C compiler, for ring's assembly.
require_build_deps() {
  apt_install build-essential cc
}

# apt_install_always PACKAGE: installs PACKAGE (no command to check for).
apt_install_always() {
  apt_install "$1" "/nonexistent/$1"
}

# Node.js and npm for the UI (Debian's packages when the machine has none).
require_node() {
  apt_install nodejs node
  apt_install npm npm
}

# Builds ui/dist (npm ci first when ui/node_modules is missing or older than the lock file).
require_ui() {
  require_node
  (
    cd ui
    if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
      npm ci --no-audit --no-fund
    fi
    npm run build
  )
}

# The webview and window libraries the desktop app links (found by
# pkg-config): WebKitGTK 4.1, GTK 3, libsoup 3, librsvg, and D-Bus (the
# window toolkit's).
require_desktop_deps() {
  require_build_deps
  apt_install make make
  apt_install pkg-config pkg-config
  pkg-config --exists dbus-1 2>/dev/null || apt_install_always libdbus-1-dev
  local lib
  for lib in webkit2gtk-4.1:libwebkit2gtk-4.1-dev javascriptcoregtk-4.1:libjavascriptcoregtk-4.1-dev \
    libsoup-3.0:libsoup-3.0-dev gtk+-3.0:libgtk-3-dev librsvg-2.0:librsvg2-dev; do
    pkg-config --exists "${lib%%:*}" 2>/dev/null || apt_install_always "${lib#*:}"
  done
}
