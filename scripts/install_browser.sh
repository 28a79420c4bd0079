#!/usr/bin/env bash
# Install what the browser test (tests/browser/test_ui_browser.py) needs, without any browser download
# from Playwright's CDN:
#   * Debian's chromium package (/usr/bin/chromium), from the distribution's apt repository;
#   * the `playwright` Python package from PyPI, which drives that chromium through
#     executable_path="/usr/bin/chromium". Do NOT run `playwright install`: it downloads browsers.
#
# Usage: sudo scripts/install_browser.sh            (as root in CI containers: no sudo needed)
# Env:   PLAYWRIGHT_VERSION  (default below; the version the browser test was checked with)
set -euo pipefail

PLAYWRIGHT_VERSION="${PLAYWRIGHT_VERSION:-1.65.2}"

if [ "$(id -u)" -ne 0 ]; then
    SUDO=sudo
else
    SUDO=
fi

if [ -x /usr/bin/chromium ]; then
    echo "chromium already installed: $(/usr/bin/chromium --version 2>/dev/null || echo unknown version)"
else
    apt-cache policy chromium
    $SUDO apt-get update
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends chromium
fi

python -m pip install "playwright==${PLAYWRIGHT_VERSION}"

/usr/bin/chromium --version
python -c "import playwright, importlib.metadata as m; print('playwright', m.version('playwright'))"
