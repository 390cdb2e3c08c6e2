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

# as_root COMMAND...: runs COMMAND as root, through sudo when not root.
as_root() {
  if [ "$(id -u)" = 0 ]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo "$@"
  else
    echo "Missing system packages and not root (no sudo either): run as root: $*" >&2
    exit 1
  fi
}

# apt_install_packages PACKAGE...: installs, in one apt-get call, those of
# the Debian packages that are not installed yet (one call resolves and
# unpacks them together: minutes faster than one call a package).
apt_install_packages() {
  local missing=() package
  for package in "$@"; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  say "Installing system packages: ${missing[*]}"
  if [ -z "${REDLINE_APT_UPDATED:-}" ]; then
    as_root apt-get update -qq
    export REDLINE_APT_UPDATED=1
  fi
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${missing[@]}" >/dev/null
}

# apt_install PACKAGE COMMAND...: installs PACKAGE unless every COMMAND exists.
apt_install() {
  local package=$1 cmd
  shift
  for cmd in "$@"; do
    command -v "$cmd" >/dev/null 2>&1 || { apt_install_packages "$package"; return; }
  done
}

# The engine links no system library (rustls with ring for HTTPS, zbus for
# the keychain); building it needs only a C compiler, for ring's assembly.
require_build_deps() {
  apt_install build-essential cc
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
DESKTOP_BUILD_PACKAGES=(build-essential make pkg-config libdbus-1-dev libwebkit2gtk-4.1-dev
  libjavascriptcoregtk-4.1-dev libsoup-3.0-dev libgtk-3-dev librsvg2-dev)

# What driving the desktop window adds (scripts/desktop-e2e): WebKitWebDriver,
# Xvfb, ImageMagick's `import` for a screenshot of the whole display, and
# libXtst for ui/e2e-desktop/xwindow.py.
DESKTOP_TEST_PACKAGES=(webkit2gtk-driver xvfb xauth imagemagick at-spi2-core dbus-x11 libxtst6)

require_desktop_deps() {
  apt_install_packages "${DESKTOP_BUILD_PACKAGES[@]}"
}

# Steps timed for the table at the end. A script run by another (scripts/test
# runs scripts/browser-e2e) adds its steps to the caller's table through
# the file named by REDLINE_STEP_LOG.
STEP_TIMES=()

# step NAME COMMAND...: runs COMMAND as one named, timed step.
step() {
  local name=$1 start=$SECONDS
  shift
  say "$name"
  "$@"
  local row="$((SECONDS - start))|$name"
  if [ -n "${REDLINE_STEP_LOG:-}" ]; then echo "$row" >>"$REDLINE_STEP_LOG"; else STEP_TIMES+=("$row"); fi
}

# print_steps: the table of the steps run so far, with their times and total.
print_steps() {
  local rows=("${STEP_TIMES[@]}") row total=0
  if [ -n "${REDLINE_STEP_LOG:-}" ] && [ -f "$REDLINE_STEP_LOG" ]; then
    mapfile -t rows <"$REDLINE_STEP_LOG"
  fi
  [ ${#rows[@]} -eq 0 ] && return 0
  printf '\n%8s  %s\n' "min:s" "step"
  for row in "${rows[@]}"; do
    printf '%5d:%02d  %s\n' $((${row%%|*} / 60)) $((${row%%|*} % 60)) "${row#*|}"
    total=$((total + ${row%%|*}))
  done
  printf '%5d:%02d  %s\n' $((total / 60)) $((total % 60)) "all steps"
}

# A real public vault with notes in many languages, for tests/real_vaults.rs:
# the documentation of @intlayer/docs (npm, Apache-2.0), 3,161 notes in 22
# languages (Arabic, Bengali, Chinese, Hindi, Japanese, Korean, Russian, Urdu
# ...), three in four with front matter in their own script. Fetched with
# npm from the registry, checked against its sha256, unpacked once into the
# cache outside the checkout; prints the notes' folder.
REAL_VAULT_SPEC=@intlayer/docs@8.9.6
REAL_VAULT_SHA256=caba4841c9644ff58652af457c10560cb10d6cba8a2a54cd1285980a6d4cc9cd
real_vault() {
  local dest="${XDG_CACHE_HOME:-$HOME/.cache}/redline/vaults/intlayer-docs"
  local stamp="$REAL_VAULT_SPEC sha256=$REAL_VAULT_SHA256" tmp
  if [ "$(cat "$dest/.redline-vault" 2>/dev/null)" != "$stamp" ]; then
    # Each step checked: a command substitution does not inherit `set -e`.
    tmp=$(mktemp -d) &&
      (cd "$tmp" && npm pack "$REAL_VAULT_SPEC" --ignore-scripts --silent >/dev/null) &&
      echo "$REAL_VAULT_SHA256  $(ls "$tmp"/*.tgz)" | sha256sum -c --quiet - &&
      rm -rf "$dest" && mkdir -p "$dest" &&
      tar -xzf "$tmp"/*.tgz -C "$dest" --strip-components=1 --no-same-owner &&
      echo "$stamp" >"$dest/.redline-vault" &&
      rm -rf "$tmp" || return 1
  fi
  echo "$dest/docs"
}
